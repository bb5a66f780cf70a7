import Foundation
import Hummingbird
import MockAPNsCore
import MockAPNsJournal

/// The control API: the router, its checks, and what every resource's handlers share. Every
/// path is under `/v1` except `/openapi.json`, `/metrics` and the dashboard's page and assets;
/// Sources/MockAPNsControl/control-api.openapi.json describes them all.
///
/// Each resource adds its own routes (`RouteCollection`s in `ControlAPI+<Resource>.swift`
/// and `Dashboard`); in front of all of them run, in order, the response headers that forbid
/// framing (`ControlResponseHeadersMiddleware`, outermost so refusals carry them too), the
/// access checks (`ControlAccessMiddleware`: one Host, then Host, Origin, bearer token), the
/// route catalog (404, 405) and the JSON body check (415).
package struct ControlAPI: Sendable {
    package let server: any ControlledServer

    package init(server: any ControlledServer) {
        self.server = server
    }

    /// The longest a wait may be asked to last, in milliseconds.
    package static let maximumWaitMilliseconds = 300_000
    /// The largest request body read.
    package static let maximumBodyBytes = 4 * 1024 * 1024
    /// Feedback timestamps in milliseconds: the feedback service sends whole seconds in
    /// 32 bits, so nothing past 2106-02-07T06:28:15.999Z.
    package static let feedbackTimestampRange: ClosedRange<Int64> = 0...(Int64(UInt32.max) * 1000 + 999)
    /// How far one clock advance may move, either way: the width of the clock's range.
    package static let clockAdvanceRange: ClosedRange<Int64> = -ServerClock.range.upperBound...ServerClock.range.upperBound

    /// What each request must pass before it is routed, from the server's configuration.
    package var policy: ControlAccessPolicy {
        server.controlAccessPolicy
    }

    package func makeRouter() -> Router<ControlRequestContext> {
        let router = Router(context: ControlRequestContext.self)
        router.add(middleware: ControlResponseHeadersMiddleware())
        router.add(middleware: ControlAccessMiddleware(policy: policy, server: server))
        router.add(middleware: RouteCatalogMiddleware(routes: operations))
        router.add(middleware: JSONContentTypeMiddleware())
        // In a fleet, each change made here is logged for the other replicas.
        if let fleet = server.fleet { router.add(middleware: ControlReplicationMiddleware(fleet: fleet)) }
        addResources(to: router)
        return router
    }

    /// Every operation served, as a method and a path (`{name}` for a path parameter): what
    /// the route catalog answers 404 and 405 from, and what a test holds equal to the OpenAPI
    /// document. Read from a router holding the same routes, so there is no second list.
    package var operations: [(method: HTTPRequest.Method, path: String)] {
        let catalog = Router(context: ControlRequestContext.self)
        addResources(to: catalog)
        return catalog.routes.map { ($0.method, $0.path.description) }
    }

    /// Adds each resource's routes at its path.
    private func addResources(to router: Router<ControlRequestContext>) {
        router.addRoutes(documentRoutes)
        router.addRoutes(serverRoutes, atPath: "/v1")
        router.addRoutes(journalRoutes, atPath: "/v1")
        router.addRoutes(scenarioRoutes, atPath: "/v1/scenario")
        router.addRoutes(registryRoutes, atPath: "/v1/registry/:token")
        router.addRoutes(rateLimitRoutes, atPath: "/v1/registry/:token/rate-limit")
        router.addRoutes(feedbackRoutes, atPath: "/v1/feedback")
        router.addRoutes(clockRoutes, atPath: "/v1/clock")
        router.addRoutes(channelRoutes, atPath: "/v1/channels")
        router.addRoutes(webPushRoutes, atPath: "/v1/web-push/subscriptions")
        router.addRoutes(deliveryRoutes, atPath: "/v1")
        router.addRoutes(sessionRoutes, atPath: "/v1/sessions")
        router.addRoutes(Dashboard(server: server).routes)
    }

    /// Turns a handler's `ControlAPIError` into its JSON answer.
    package func handle(
        _ body: @escaping @Sendable (Request, ControlRequestContext) async throws(ControlAPIError) -> Response
    ) -> @Sendable (Request, ControlRequestContext) async throws -> Response {
        { request, context in
            do throws(ControlAPIError) {
                return try await body(request, context)
            } catch {
                return error.response
            }
        }
    }

    // MARK: Helpers

    package static func notificationList(
        _ records: [NotificationRecord], status: HTTPResponse.Status = .ok, extra: (inout JSONWriter) -> Void
    ) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("notifications")
        for record in records { JournalJSON.write(record, key: nil, into: &writer) }
        writer.endArray()
        writer.integer("count", records.count)
        extra(&writer)
        writer.endObject()
        return ControlResponse.json(writer.text, status: status)
    }

    package static func write(_ statistics: JournalStatistics, key: String, into json: inout JSONWriter) {
        json.beginObject(key)
        json.integer("count", statistics.count)
        json.integer("capacity", statistics.capacity)
        json.integer("bytes", statistics.bytes)
        json.integer("capacityBytes", statistics.capacityBytes)
        json.integer("dropped", statistics.dropped)
        json.integer("lastSequence", statistics.lastSequence)
        json.endObject()
    }

    package static func tokenState(_ token: String, _ values: [String: Int64], note: String? = nil) -> Response {
        ControlResponse.object { json in
            json.string("token", token)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { json.integer(key, value) }
            json.string("result", note)
        }
    }

    /// The `:token` path segment: hex digits only, as APNs device tokens are.
    package static func token(_ context: ControlRequestContext) throws(ControlAPIError) -> String {
        let token = context.parameters.get("token") ?? ""
        try checkToken(token, parameter: "token")
        return token.lowercased()
    }

    package static func checkToken(_ token: String, parameter: String) throws(ControlAPIError) {
        guard !token.isEmpty, token.utf8.count <= 200, token.utf8.allSatisfy({ $0.isHexDigit }) else {
            throw ControlAPIError("a device token is 1 to 200 hex digits, not \"\(token.prefix(210))\"", parameter: parameter)
        }
    }

    package static func bodyText(_ request: Request) async throws(ControlAPIError) -> String {
        do {
            let buffer = try await request.body.collect(upTo: maximumBodyBytes)
            return String(buffer: buffer)
        } catch {
            throw ControlAPIError("the body is larger than \(maximumBodyBytes) bytes", parameter: "body", status: .contentTooLarge)
        }
    }

    /// The body as a JSON object; `nil` for an empty body when that is allowed.
    package static func bodyObject(_ request: Request, allowEmpty: Bool) async throws(ControlAPIError) -> JSONObjectReader? {
        let text = try await bodyText(request)
        if text.allSatisfy(\.isWhitespace) {
            guard allowEmpty else { throw ControlAPIError("a JSON object body is required", parameter: "body") }
            return nil
        }
        do {
            return try JSONObjectReader(try JSONParser.parse(text))
        } catch {
            throw ControlAPIError(error)
        }
    }

    package static func readInteger(
        _ body: inout JSONObjectReader?, _ key: String, in range: ClosedRange<Int64>
    ) throws(ControlAPIError) -> Int64? {
        do { return try body?.integer(key, in: range) } catch { throw ControlAPIError(error) }
    }

    package static func readString(_ body: inout JSONObjectReader?, _ key: String) throws(ControlAPIError) -> String? {
        do { return try body?.string(key) } catch { throw ControlAPIError(error) }
    }

    /// Refuses a body with members for an operation that takes none; an empty body and
    /// `{}` are fine.
    package static func noFields(_ request: Request) async throws(ControlAPIError) {
        try finish(try await bodyObject(request, allowEmpty: true), allowed: [])
    }

    package static func finish(_ body: JSONObjectReader?, allowed: [String]) throws(ControlAPIError) {
        do { try body?.finish(allowed: allowed) } catch { throw ControlAPIError(error) }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
