import Hummingbird
import MockAPNsCore

/// Per-token rate windows: `429 TooManyRequests` once a token has had its pushes for the
/// window, counted on the server clock (advance it with `POST /v1/clock/advance`).
extension ControlAPI {
    /// `/v1/registry/{token}/rate-limit`: `GET`, `PUT`, `DELETE`.
    package var rateLimitRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(rateLimit))
        routes.put(use: handle(setRateLimit))
        routes.delete(use: handle(removeRateLimit))
        return routes
    }

    /// The window that applies to the token: its own, else the server-wide `registry.rateLimit`.
    private func rateLimit(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let token = try Self.token(context)
        return Self.rateLimitState(token, registry: server.registry)
    }

    /// `{"pushes": N, "perSeconds": S}`: the token's own window, replacing the server-wide one
    /// for it. Setting the window it already has keeps its count; another one starts afresh.
    private func setRateLimit(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let token = try Self.token(context)
        guard var body = try await Self.bodyObject(request, allowEmpty: false) else {
            throw ControlAPIError("a JSON object body is required: {\"pushes\": N, \"perSeconds\": S}", parameter: "body")
        }
        let window: RateWindow
        do {
            window = try RateWindow.read(&body)
        } catch {
            throw ControlAPIError(error)
        }
        server.registry.limitPushes(token, to: window)
        return Self.rateLimitState(token, registry: server.registry)
    }

    /// Removes the token's own window: the server-wide one applies again, if any.
    private func removeRateLimit(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let token = try Self.token(context)
        try await Self.noFields(request)
        server.registry.removePushLimit(token)
        return Self.rateLimitState(token, registry: server.registry)
    }

    private static func rateLimitState(_ token: String, registry: DeviceRegistry) -> Response {
        let window = registry.rateWindow(of: token)
        let own = registry.hasOwnRateWindow(token)
        return ControlResponse.object { json in
            json.string("token", token)
            if let window {
                json.beginObject("rateLimit")
                json.integer("pushes", window.pushes)
                json.raw("perSeconds", json: String(window.perSeconds))
                json.integer("perMilliseconds", window.perMilliseconds)
                json.endObject()
                json.string("scope", own ? "token" : "server")
            } else {
                json.string("scope", "none")
            }
        }
    }
}
