import Foundation
import Hummingbird
import MockAPNsCore

/// The control API's routes: each reads its parameters, calls the server, and answers JSON.
/// Every path is under `/v1` except `/openapi.json`; Sources/MockAPNs/Control/control-api.openapi.json describes
/// them all.
struct ControlAPI: Sendable {
    let server: MockAPNsServer

    /// The longest a wait may be asked to last, in milliseconds.
    static let maximumWaitMilliseconds = 300_000
    /// The largest request body read.
    static let maximumBodyBytes = 4 * 1024 * 1024
    /// Feedback timestamps in milliseconds: the feedback service sends whole seconds in
    /// 32 bits, so nothing past 2106-02-07T06:28:15.999Z.
    static let feedbackTimestampRange: ClosedRange<Int64> = 0...(Int64(UInt32.max) * 1000 + 999)
    /// How far one clock advance may move, either way: the width of the clock's range.
    static let clockAdvanceRange: ClosedRange<Int64> = -ServerClock.range.upperBound...ServerClock.range.upperBound

    /// One operation: a method on a path (`:name` is a path parameter) and what answers it.
    struct Route: Sendable {
        var method: HTTPRequest.Method
        var path: String
        var handler: @Sendable (Request, BasicRequestContext) async throws(ControlAPIError) -> Response
    }

    /// Every operation the control API serves; the router is built from this table, and a
    /// test holds it equal to the OpenAPI document's operations.
    var routes: [Route] {
        [
            Route(method: .get, path: "/openapi.json", handler: { _, _ in ControlResponse.json(ControlOpenAPI.document) }),
            Route(method: .get, path: "/v1/health", handler: health),
            Route(method: .get, path: "/v1/ports", handler: ports),
            Route(method: .get, path: "/v1/journal", handler: journalStatistics),
            Route(method: .delete, path: "/v1/journal", handler: clearJournal),
            Route(method: .get, path: "/v1/notifications", handler: notifications),
            Route(method: .get, path: "/v1/notifications/wait", handler: waitForNotifications),
            Route(method: .get, path: "/v1/events", handler: events),
            Route(method: .get, path: "/v1/scenario", handler: scenario),
            Route(method: .put, path: "/v1/scenario", handler: replaceScenario),
            Route(method: .post, path: "/v1/registry/:token/unregister", handler: unregister),
            Route(method: .post, path: "/v1/registry/:token/expire", handler: expire),
            Route(method: .put, path: "/v1/registry/:token/topics", handler: bindTopics),
            Route(method: .put, path: "/v1/registry/:token/environment", handler: bindEnvironment),
            Route(method: .post, path: "/v1/registry/:token/reactivate", handler: reactivate),
            Route(method: .delete, path: "/v1/registry/:token", handler: forget),
            Route(method: .get, path: "/v1/feedback", handler: pendingFeedback),
            Route(method: .post, path: "/v1/feedback", handler: addFeedback),
            Route(method: .get, path: "/v1/clock", handler: clock),
            Route(method: .put, path: "/v1/clock", handler: setClock),
            Route(method: .post, path: "/v1/clock/advance", handler: advanceClock),
            Route(method: .post, path: "/v1/clock/resume", handler: resumeClock),
            Route(method: .post, path: "/v1/legacy/shutdown", handler: legacyShutdown),
            Route(method: .post, path: "/v1/reset", handler: reset),
            Route(method: .get, path: "/metrics", handler: { [server] _, _ in
                Response(
                    status: .ok, headers: [.contentType: ServerMetrics.contentType],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: await server.metricsText()))
                )
            }),
        ] + channelRoutes + deliveryRoutes + Dashboard(server: server).routes
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let routes = self.routes
        router.add(middleware: MethodNotAllowedMiddleware(routes: routes.map { ($0.method, $0.path) }))
        router.add(middleware: UnknownPathAsJSON())
        for route in routes {
            router.on(RouterPath(route.path), method: route.method, use: handle(route.handler))
        }
        return router
    }

    /// Turns a handler's `ControlAPIError` into its JSON answer.
    func handle(
        _ body: @escaping @Sendable (Request, BasicRequestContext) async throws(ControlAPIError) -> Response
    ) -> @Sendable (Request, BasicRequestContext) async throws -> Response {
        { request, context in
            do throws(ControlAPIError) {
                return try await body(request, context)
            } catch {
                return error.response
            }
        }
    }

    // MARK: Server

    private func health(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let statistics = server.journal.statistics
        return ControlResponse.object { json in
            json.string("status", "ok")
            Self.write(statistics, key: "journal", into: &json)
        }
    }

    private func ports(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        guard let ports = server.ports else { throw ControlAPIError("the server is not listening", status: .serviceUnavailable) }
        return ControlResponse.json(ports.json)
    }

    // MARK: Journal

    private func journalStatistics(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let statistics = server.journal.statistics
        return ControlResponse.object { json in
            json.integer("count", statistics.count)
            json.integer("capacity", statistics.capacity)
            json.integer("dropped", statistics.dropped)
            json.integer("lastSequence", statistics.lastSequence)
            json.bool("frames", server.journal.options.recordsFrames)
        }
    }

    private func clearJournal(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        server.journal.clear()
        return ControlResponse.object { $0.bool("cleared", true) }
    }

    private func notifications(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let query = try ControlQuery(request, allowed: ControlQuery.notificationParameters)
        let records = server.journal.notifications(matching: try query.notificationFilter(), limit: try query.limit())
        return Self.notificationList(records, extra: { json in
            json.integer("lastSequence", server.journal.statistics.lastSequence)
        })
    }

    /// Answers once `count` matching notifications are in the journal, or at `timeout`
    /// milliseconds with what there is (`complete: false`).
    private func waitForNotifications(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let query = try ControlQuery(request, allowed: ControlQuery.notificationParameters.union(["count", "timeout"]))
        let filter = try query.notificationFilter()
        guard let count = try query.integer("count", in: 1...100_000) else {
            throw ControlAPIError("count is required: how many matching notifications to wait for", parameter: "count")
        }
        let timeout = try query.integer("timeout", in: 0...Self.maximumWaitMilliseconds) ?? 10_000
        let records = await server.journal.waitForNotifications(count: count, matching: filter, timeout: .milliseconds(timeout))
        return Self.notificationList(records, extra: { json in
            json.bool("complete", records.count >= count)
        })
    }

    private func events(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let query = try ControlQuery(request, allowed: ["type", "connection", "stream", "protocol", "after", "limit", "wait", "channel"])
        let filter = JournalEventFilter(
            kinds: try query.eventKinds(),
            connectionID: try query.integer("connection", in: 1...UInt64.max),
            streamID: try query.integer("stream", in: 0...Int32.max),
            afterSequence: try query.integer("after", in: 0...UInt64.max),
            transport: try query.oneOf("protocol", Transport.self),
            channelID: try query.string("channel")
        )
        let limit = try query.limit()
        let journal = server.journal
        var found = journal.events(matching: filter, limit: limit)
        if found.isEmpty, let wait = try query.integer("wait", in: 1...Self.maximumWaitMilliseconds) {
            // A follower waits for the next matching event instead of polling.
            _ = await journal.waitForEvents(count: 1, after: filter.afterSequence, timeout: .milliseconds(wait)) { event in
                filter.matches(event, transportOf: journal.transport(ofConnection:))
            }
            found = journal.events(matching: filter, limit: limit)
        }
        let statistics = journal.statistics
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("events")
        for event in found { JournalJSON.write(event, into: &writer) }
        writer.endArray()
        writer.integer("lastSequence", statistics.lastSequence)
        writer.integer("dropped", statistics.dropped)
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    // MARK: Scenario

    /// The running scenario, its named state, and how often each rule has fired.
    private func scenario(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let engine = server.scenarioEngine
        let scenario = engine.scenario
        let firings = engine.firingCounts
        return ControlResponse.object { json in
            json.string("name", scenario.name)
            json.string("description", scenario.description)
            json.integer("seed", engine.seed)
            json.integer("rules", scenario.rules.count)
            json.string("initialState", scenario.initialState)
            json.string("state", engine.currentState)
            json.integer("requests", engine.requestCount)
            json.beginArray("firings")
            for (rule, fired) in zip(scenario.rules, firings) {
                json.beginObject()
                json.string("rule", rule.name)
                json.integer("fired", fired)
                json.integer("times", rule.times)
                json.endObject()
            }
            json.endArray()
        }
    }

    private func replaceScenario(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let text = try await Self.bodyText(request)
        do {
            try server.replaceScenario(jsonText: text)
        } catch {
            throw ControlAPIError("the scenario was not loaded: \(error)", parameter: "body")
        }
        return try await scenario(request, context)
    }

    // MARK: Registry

    private func unregister(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: true)
        let since = try Self.readInteger(&body, "since", in: ServerClock.range) ?? server.clock.millisecondsSince1970
        let topic = try Self.readString(&body, "topic")
        try Self.finish(body, allowed: ["since", "topic"])
        server.registry.markUnregistered(token, since: since, topic: topic)
        return Self.tokenState(token, ["unregisteredSince": since])
    }

    private func expire(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: true)
        let since = try Self.readInteger(&body, "since", in: ServerClock.range) ?? server.clock.millisecondsSince1970
        try Self.finish(body, allowed: ["since"])
        server.registry.markExpired(token, since: since)
        return Self.tokenState(token, ["expiredSince": since])
    }

    private func bindTopics(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let listed: [String]?
        do {
            listed = try body?.strings("topics")
        } catch {
            throw ControlAPIError(error)
        }
        guard let topics = listed else {
            throw ControlAPIError("topics is required: an array of topic strings", parameter: "$.topics")
        }
        try Self.finish(body, allowed: ["topics"])
        server.registry.bind(token, toTopics: Set(topics))
        return ControlResponse.object { json in
            json.string("token", token)
            json.strings("topics", topics.sorted())
        }
    }

    private func bindEnvironment(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let environment: APNsEnvironment?
        do {
            environment = try body?.oneOf("environment", APNsEnvironment.self)
        } catch {
            throw ControlAPIError(error)
        }
        guard let environment else {
            throw ControlAPIError("environment is required: sandbox or production", parameter: "$.environment")
        }
        try Self.finish(body, allowed: ["environment"])
        server.registry.bind(token, to: environment)
        return ControlResponse.object { json in
            json.string("token", token)
            json.string("environment", environment.rawValue)
        }
    }

    private func reactivate(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        server.registry.reactivate(token)
        return Self.tokenState(token, [:], note: "reactivated")
    }

    private func forget(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        server.registry.forget(token)
        return Self.tokenState(token, [:], note: "forgotten")
    }

    // MARK: Feedback

    private func pendingFeedback(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let entries = server.registry.pendingFeedback
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("feedback")
        for entry in entries {
            writer.beginObject()
            writer.string("deviceToken", entry.deviceToken)
            writer.integer("timestamp", entry.timestamp)
            writer.string("topic", entry.topic)
            writer.string("environment", entry.environment?.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// Queues a feedback tuple (unless one for the same token and topic is still waiting) and
    /// marks the token unregistered, as a tuple in the feedback service says.
    private func addFeedback(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        var body = try await Self.bodyObject(request, allowEmpty: false)
        guard let token = try Self.readString(&body, "deviceToken") else {
            throw ControlAPIError("deviceToken is required", parameter: "$.deviceToken")
        }
        try Self.checkToken(token, parameter: "$.deviceToken")
        // A feedback tuple carries its time as 32-bit seconds: a time it cannot carry would
        // never reach a client, so it is refused here rather than skipped at send time.
        let timestamp = try Self.readInteger(&body, "timestamp", in: Self.feedbackTimestampRange)
            ?? server.clock.millisecondsSince1970
        let topic = try Self.readString(&body, "topic")
        try Self.finish(body, allowed: ["deviceToken", "timestamp", "topic"])
        server.registry.queueFeedback(token, since: timestamp, topic: topic)
        return try await pendingFeedback(request, context)
    }

    // MARK: Clock

    private func clock(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let clock = server.clock
        let now = clock.millisecondsSince1970
        return ControlResponse.object { json in
            json.integer("millisecondsSince1970", now)
            json.string("time", Date(timeIntervalSince1970: Double(now) / 1000).ISO8601Format())
            json.bool("fixed", clock.isFixed)
        }
    }

    /// `{"millisecondsSince1970": N}` or `{"time": "2026-01-01T00:00:00Z"}`: pins the clock.
    private func setClock(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let milliseconds = try Self.readInteger(&body, "millisecondsSince1970", in: ServerClock.range)
        let time = try Self.readString(&body, "time")
        try Self.finish(body, allowed: ["millisecondsSince1970", "time"])
        switch (milliseconds, time) {
        case (let value?, nil):
            server.clock.set(millisecondsSince1970: value)
        case (nil, let text?):
            guard let value = ClockSetting.parseISO8601(text), ServerClock.range.contains(value) else {
                throw ControlAPIError(
                    "time must be an ISO 8601 UTC time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z like 2026-01-01T00:00:00Z, not \"\(text.prefix(100))\"",
                    parameter: "$.time")
            }
            server.clock.set(millisecondsSince1970: value)
        default:
            throw ControlAPIError("give exactly one of millisecondsSince1970 or time", parameter: "$")
        }
        await server.catchUpDelivery()
        return try await clock(request, context)
    }

    private func advanceClock(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        var body = try await Self.bodyObject(request, allowEmpty: false)
        guard let milliseconds = try Self.readInteger(&body, "milliseconds", in: Self.clockAdvanceRange) else {
            throw ControlAPIError("milliseconds is required", parameter: "$.milliseconds")
        }
        try Self.finish(body, allowed: ["milliseconds"])
        // The clock stops at the ends of its range (1970 and 9999) rather than wrap or trap.
        server.clock.advance(milliseconds: milliseconds)
        // Storage expiries and batch releases the move passed happen now, not at the next look.
        await server.catchUpDelivery()
        return try await clock(request, context)
    }

    private func resumeClock(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        server.clock.resume()
        await server.catchUpDelivery()
        return try await clock(request, context)
    }

    // MARK: Legacy

    private func legacyShutdown(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        await server.legacyShutdown()
        return ControlResponse.object { $0.bool("shutDown", true) }
    }

    // MARK: Reset

    /// Puts the server back as the configuration started it and says what was cleared.
    private func reset(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let reset = server.reset()
        return ControlResponse.object { json in
            json.beginObject("cleared")
            json.integer("journalEvents", reset.journalEvents)
            json.integer("registryTokens", reset.registryTokens)
            json.integer("feedbackEntries", reset.feedbackEntries)
            json.integer("broadcastChannels", reset.broadcastChannels)
            json.beginObject("scenario")
            json.string("name", reset.scenario)
            json.integer("requests", reset.scenarioRequests)
            json.integer("firings", reset.scenarioFirings)
            json.string("state", reset.scenarioState)
            json.endObject()
            json.endObject()
            json.integer("seed", reset.seed)
            json.beginObject("clock")
            json.integer("millisecondsSince1970", reset.clockMilliseconds)
            json.bool("fixed", reset.clockFixed)
            json.endObject()
        }
    }

    // MARK: Helpers

    private static func notificationList(_ records: [NotificationRecord], extra: (inout JSONWriter) -> Void) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("notifications")
        for record in records { JournalJSON.write(record, key: nil, into: &writer) }
        writer.endArray()
        writer.integer("count", records.count)
        extra(&writer)
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    private static func write(_ statistics: JournalStatistics, key: String, into json: inout JSONWriter) {
        json.beginObject(key)
        json.integer("count", statistics.count)
        json.integer("capacity", statistics.capacity)
        json.integer("dropped", statistics.dropped)
        json.integer("lastSequence", statistics.lastSequence)
        json.endObject()
    }

    private static func tokenState(_ token: String, _ values: [String: Int64], note: String? = nil) -> Response {
        ControlResponse.object { json in
            json.string("token", token)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { json.integer(key, value) }
            json.string("result", note)
        }
    }

    /// The `:token` path segment: hex digits only, as APNs device tokens are.
    static func token(_ context: BasicRequestContext) throws(ControlAPIError) -> String {
        let token = context.parameters.get("token") ?? ""
        try checkToken(token, parameter: "token")
        return token.lowercased()
    }

    private static func checkToken(_ token: String, parameter: String) throws(ControlAPIError) {
        guard !token.isEmpty, token.utf8.count <= 200, token.utf8.allSatisfy({ $0.isHexDigit }) else {
            throw ControlAPIError("a device token is 1 to 200 hex digits, not \"\(token.prefix(210))\"", parameter: parameter)
        }
    }

    private static func bodyText(_ request: Request) async throws(ControlAPIError) -> String {
        do {
            let buffer = try await request.body.collect(upTo: maximumBodyBytes)
            return String(buffer: buffer)
        } catch {
            throw ControlAPIError("the body is larger than \(maximumBodyBytes) bytes", parameter: "body", status: .contentTooLarge)
        }
    }

    /// The body as a JSON object; `nil` for an empty body when that is allowed.
    static func bodyObject(_ request: Request, allowEmpty: Bool) async throws(ControlAPIError) -> JSONObjectReader? {
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

    private static func readInteger(
        _ body: inout JSONObjectReader?, _ key: String, in range: ClosedRange<Int64>
    ) throws(ControlAPIError) -> Int64? {
        do { return try body?.integer(key, in: range) } catch { throw ControlAPIError(error) }
    }

    private static func readString(_ body: inout JSONObjectReader?, _ key: String) throws(ControlAPIError) -> String? {
        do { return try body?.string(key) } catch { throw ControlAPIError(error) }
    }

    static func finish(_ body: JSONObjectReader?, allowed: [String]) throws(ControlAPIError) {
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
