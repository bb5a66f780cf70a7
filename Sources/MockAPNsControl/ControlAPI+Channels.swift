import Foundation
import Hummingbird
import MockAPNsCore
import MockAPNsBroadcast

/// The broadcast channel routes: list, create and delete channels of the registry the
/// channel management API and broadcasts use.
extension ControlAPI {
    /// `/v1/channels`: `GET`, `POST`, `DELETE {id}`.
    package var channelRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(listChannels))
        routes.post(use: handle(createChannel))
        routes.delete(":id", use: handle(deleteChannel))
        return routes
    }

    /// `GET /v1/channels[?bundleId=...&environment=...]`
    private func listChannels(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let query = try ControlQuery(request, allowed: ["bundleId", "environment"])
        let bundleID = try query.string("bundleId")
        let environment = try query.oneOf("environment", APNsEnvironment.self)
        let channels = server.channels.all.filter {
            (bundleID == nil || $0.bundleID == bundleID) && (environment == nil || $0.environment == environment)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("channels")
        for channel in channels { Self.write(channel, into: &writer) }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// `POST /v1/channels` with `{"bundleId": ..., "messageStoragePolicy": 0|1, "environment": ..., "id": ...}`:
    /// `id` and `environment` are optional (a fresh id; the server's environment). An
    /// existing id is replaced. The channel limit does not apply here.
    private func createChannel(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let id: String?
        let bundleID: String?
        let policy: Int64?
        let environment: APNsEnvironment?
        do {
            id = try body?.string("id")
            bundleID = try body?.string("bundleId")
            policy = try body?.integer("messageStoragePolicy", in: 0...1)
            environment = try body?.oneOf("environment", APNsEnvironment.self)
        } catch {
            throw ControlAPIError(error)
        }
        try Self.finish(body, allowed: ["id", "bundleId", "messageStoragePolicy", "environment"])
        guard let bundleID, !bundleID.isEmpty else {
            throw ControlAPIError("bundleId is required: the app's bundle id", parameter: "$.bundleId")
        }
        let options = server.broadcastOptions
        if let id, !ChannelID.isWellFormed(id, maximumLength: options.maximumChannelIDLength) {
            throw ControlAPIError(
                "id must be a base64 channel id of at most \(options.maximumChannelIDLength) characters", parameter: "$.id")
        }
        let channel = BroadcastChannel(
            id: id ?? ChannelID.generate(byteCount: options.channelIDByteCount), bundleID: bundleID,
            environment: environment ?? server.primaryEnvironment,
            storagePolicy: policy.flatMap { MessageStoragePolicy(rawValue: Int($0)) } ?? .mostRecentMessageStored,
            createdAtMilliseconds: server.clock.millisecondsSince1970
        )
        server.channels.insert(channel)
        var writer = JSONWriter()
        Self.write(channel, into: &writer)
        return ControlResponse.json(writer.text, status: .created)
    }

    /// `DELETE /v1/channels/{id}` (the id percent-encoded: base64 has `/` and `+`).
    private func deleteChannel(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        guard let raw = context.parameters.get("id"), let id = raw.removingPercentEncoding else {
            throw ControlAPIError("the channel id is missing from the path", parameter: "id")
        }
        guard server.channels.delete(id: id) else {
            throw ControlAPIError("no channel has the id \(id)", parameter: "id", status: .notFound)
        }
        return ControlResponse.object { json in
            json.string("id", id)
            json.bool("deleted", true)
        }
    }

    package static func write(_ channel: BroadcastChannel, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("id", channel.id)
        writer.string("bundleId", channel.bundleID)
        writer.string("environment", channel.environment.rawValue)
        writer.integer("messageStoragePolicy", channel.storagePolicy.rawValue)
        writer.string("pushType", BroadcastChannel.pushType)
        writer.integer("createdAt", channel.createdAtMilliseconds)
        writer.endObject()
    }
}
