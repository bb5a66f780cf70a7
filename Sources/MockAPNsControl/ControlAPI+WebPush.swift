import Hummingbird
import MockAPNsCore
import MockAPNsWebPush

/// Web push subscriptions, made as a browser makes them: a test plays the page that calls
/// `pushManager.subscribe({applicationServerKey})` and hands the result to the application
/// server under test.
extension ControlAPI {
    /// `/v1/web-push/subscriptions`: `GET`, `POST`, `GET {id}`, `POST {id}/expire`,
    /// `POST {id}/revoke`, `DELETE {id}`.
    package var webPushRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(listSubscriptions))
        routes.post(use: handle(subscribe))
        routes.get(":id", use: handle(readSubscription))
        routes.post(":id/expire", use: handle(expireSubscription))
        routes.post(":id/revoke", use: handle(revokeSubscription))
        routes.delete(":id", use: handle(forgetSubscription))
        return routes
    }

    /// `GET /v1/web-push/subscriptions`
    private func listSubscriptions(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("subscriptions")
        for subscription in server.webPushSubscriptionList { Self.write(subscription, into: &writer) }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// `POST /v1/web-push/subscriptions` with `{"applicationServerKey": "<base64url P-256 public key>"}`.
    private func subscribe(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let key = try Self.readString(&body, "applicationServerKey")
        try Self.finish(body, allowed: ["applicationServerKey"])
        guard let key else {
            throw ControlAPIError(
                "applicationServerKey is required: the VAPID public key as a page passes it to pushManager.subscribe (base64url of the 65-byte uncompressed P-256 point)",
                parameter: "$.applicationServerKey")
        }
        let subscription: WebPushSubscriptionInfo
        do {
            subscription = try server.makeWebPushSubscription(applicationServerKey: key)
        } catch {
            throw ControlAPIError(error.description, parameter: "$.applicationServerKey")
        }
        var writer = JSONWriter()
        Self.write(subscription, into: &writer)
        return ControlResponse.json(writer.text, status: .created)
    }

    /// `GET /v1/web-push/subscriptions/{id}`
    private func readSubscription(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let id = try Self.subscriptionID(context)
        guard let subscription = server.webPushSubscriptionList.first(where: { $0.id == id }) else {
            throw ControlAPIError("no web push subscription has the id \(id)", parameter: "id", status: .notFound)
        }
        var writer = JSONWriter()
        Self.write(subscription, into: &writer)
        return ControlResponse.json(writer.text)
    }

    /// `POST /v1/web-push/subscriptions/{id}/expire`: the browser let it lapse.
    private func expireSubscription(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        return try await change(request, context) { server.expireWebPushSubscription($0) }
    }

    /// `POST /v1/web-push/subscriptions/{id}/revoke`: the person removed the site's permission.
    private func revokeSubscription(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        return try await change(request, context) { server.revokeWebPushSubscription($0) }
    }

    /// `DELETE /v1/web-push/subscriptions/{id}`
    private func forgetSubscription(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        let id = try Self.subscriptionID(context)
        guard server.forgetWebPushSubscription(id) else {
            throw ControlAPIError("no web push subscription has the id \(id)", parameter: "id", status: .notFound)
        }
        return ControlResponse.object { json in
            json.string("id", id)
            json.bool("deleted", true)
        }
    }

    /// Applies `change` to the subscription the path names and answers with it as it is now.
    private func change(
        _ request: Request, _ context: ControlRequestContext, _ change: (String) -> Bool
    ) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        let id = try Self.subscriptionID(context)
        guard change(id), let subscription = server.webPushSubscriptionList.first(where: { $0.id == id }) else {
            throw ControlAPIError("no web push subscription has the id \(id)", parameter: "id", status: .notFound)
        }
        var writer = JSONWriter()
        Self.write(subscription, into: &writer)
        return ControlResponse.json(writer.text)
    }

    private static func subscriptionID(_ context: ControlRequestContext) throws(ControlAPIError) -> String {
        guard let id = context.parameters.get("id"), !id.isEmpty else {
            throw ControlAPIError("the subscription id is missing from the path", parameter: "id")
        }
        return id
    }

    /// A subscription as `PushSubscription.toJSON()` has it, with MockAPNs' id and state.
    package static func write(_ subscription: WebPushSubscriptionInfo, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("id", subscription.id)
        writer.string("state", subscription.state)
        writer.string("endpoint", subscription.endpoint)
        writer.raw("expirationTime", json: "null")
        writer.beginObject("keys")
        writer.string("p256dh", subscription.p256dh)
        writer.string("auth", subscription.auth)
        writer.endObject()
        writer.endObject()
    }
}
