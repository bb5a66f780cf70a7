import Hummingbird
import MockAPNsCore

/// The feedback service's queue: what waits, and queueing a tuple.
extension ControlAPI {
    /// `/v1/feedback`: `GET`, `POST`.
    package var feedbackRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(pendingFeedback))
        routes.post(use: handle(addFeedback))
        return routes
    }

    fileprivate func pendingFeedback(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
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
    fileprivate func addFeedback(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
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
}
