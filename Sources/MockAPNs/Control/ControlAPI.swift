import Foundation
import Hummingbird
import MockAPNsCore

/// The control API's routes: each reads its parameters, calls the server, and answers JSON.
/// Every path is under `/v1` except `/openapi.json`; docs/control-api.openapi.json describes
/// them all.
struct ControlAPI: Sendable {
    let server: MockAPNsServer

    /// The longest a wait may be asked to last, in milliseconds.
    static let maximumWaitMilliseconds = 300_000
    /// The largest request body read.
    static let maximumBodyBytes = 4 * 1024 * 1024

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/openapi.json") { _, _ in ControlResponse.json(ControlOpenAPI.document) }
        router.get("/v1/health", use: handle(health))
        router.get("/v1/ports", use: handle(ports))
        router.get("/v1/journal", use: handle(journalStatistics))
        router.delete("/v1/journal", use: handle(clearJournal))
        router.get("/v1/notifications", use: handle(notifications))
        router.get("/v1/notifications/wait", use: handle(waitForNotifications))
        router.get("/v1/events", use: handle(events))
        router.get("/v1/scenario", use: handle(scenario))
        router.put("/v1/scenario", use: handle(replaceScenario))
        router.post("/v1/registry/:token/unregister", use: handle(unregister))
        router.post("/v1/registry/:token/expire", use: handle(expire))
        router.put("/v1/registry/:token/topics", use: handle(bindTopics))
        router.put("/v1/registry/:token/environment", use: handle(bindEnvironment))
        router.post("/v1/registry/:token/reactivate", use: handle(reactivate))
        router.delete("/v1/registry/:token", use: handle(forget))
        router.get("/v1/feedback", use: handle(pendingFeedback))
        router.post("/v1/feedback", use: handle(addFeedback))
        router.get("/v1/clock", use: handle(clock))
        router.put("/v1/clock", use: handle(setClock))
        router.post("/v1/clock/advance", use: handle(advanceClock))
        router.post("/v1/clock/resume", use: handle(resumeClock))
        router.post("/v1/legacy/shutdown", use: handle(legacyShutdown))
        Dashboard(server: server).addRoutes(to: router)
        return router
    }

    /// Turns a handler's `ControlAPIError` into its JSON answer.
    private func handle(
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
        let query = try ControlQuery(request, allowed: ["type", "connection", "stream", "protocol", "after", "limit", "wait"])
        var kinds: Set<String>?
        if let types = try query.string("type") {
            let names = Set(types.split(separator: ",").map(String.init))
            if let unknown = names.first(where: { !JournalEventKind.allNames.contains($0) }) {
                throw ControlAPIError(
                    "unknown event type \"\(unknown)\"; known: \(JournalEventKind.allNames.joined(separator: ", "))",
                    parameter: "type")
            }
            kinds = names
        }
        let filter = JournalEventFilter(
            kinds: kinds,
            connectionID: try query.integer("connection", in: 1...UInt64.max),
            streamID: try query.integer("stream", in: 0...Int32.max),
            afterSequence: try query.integer("after", in: 0...UInt64.max),
            transport: try query.oneOf("protocol", Transport.self)
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

    private func scenario(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let scenario = server.currentScenario
        return ControlResponse.object { json in
            json.string("name", scenario.name)
            json.string("description", scenario.description)
            json.integer("seed", server.scenarioEngine.seed)
            json.integer("rules", scenario.rules.count)
            json.string("initialState", scenario.initialState)
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
        let since = try Self.readInteger(&body, "since") ?? server.clock.millisecondsSince1970
        let topic = try Self.readString(&body, "topic")
        try Self.finish(body, allowed: ["since", "topic"])
        server.registry.markUnregistered(token, since: since, topic: topic)
        return Self.tokenState(token, ["unregisteredSince": since])
    }

    private func expire(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: true)
        let since = try Self.readInteger(&body, "since") ?? server.clock.millisecondsSince1970
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
        let timestamp = try Self.readInteger(&body, "timestamp") ?? server.clock.millisecondsSince1970
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
        let milliseconds = try Self.readInteger(&body, "millisecondsSince1970")
        let time = try Self.readString(&body, "time")
        try Self.finish(body, allowed: ["millisecondsSince1970", "time"])
        switch (milliseconds, time) {
        case (let value?, nil):
            server.clock.set(millisecondsSince1970: value)
        case (nil, let text?):
            guard let value = ClockSetting.parseISO8601(text) else {
                throw ControlAPIError("time must be an ISO 8601 UTC time like 2026-01-01T00:00:00Z, not \"\(text)\"", parameter: "$.time")
            }
            server.clock.set(millisecondsSince1970: value)
        default:
            throw ControlAPIError("give exactly one of millisecondsSince1970 or time", parameter: "$")
        }
        return try await clock(request, context)
    }

    private func advanceClock(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        var body = try await Self.bodyObject(request, allowEmpty: false)
        guard let milliseconds = try Self.readInteger(&body, "milliseconds") else {
            throw ControlAPIError("milliseconds is required", parameter: "$.milliseconds")
        }
        try Self.finish(body, allowed: ["milliseconds"])
        server.clock.advance(milliseconds: milliseconds)
        return try await clock(request, context)
    }

    private func resumeClock(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        server.clock.resume()
        return try await clock(request, context)
    }

    // MARK: Legacy

    private func legacyShutdown(_ request: Request, _ context: BasicRequestContext) async throws(ControlAPIError) -> Response {
        await server.legacyShutdown()
        return ControlResponse.object { $0.bool("shutDown", true) }
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
    private static func token(_ context: BasicRequestContext) throws(ControlAPIError) -> String {
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
    private static func bodyObject(_ request: Request, allowEmpty: Bool) async throws(ControlAPIError) -> JSONObjectReader? {
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

    private static func readInteger(_ body: inout JSONObjectReader?, _ key: String) throws(ControlAPIError) -> Int64? {
        do { return try body?.integer(key, in: Int64.min...Int64.max) } catch { throw ControlAPIError(error) }
    }

    private static func readString(_ body: inout JSONObjectReader?, _ key: String) throws(ControlAPIError) -> String? {
        do { return try body?.string(key) } catch { throw ControlAPIError(error) }
    }

    private static func finish(_ body: JSONObjectReader?, allowed: [String]) throws(ControlAPIError) {
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
