import Foundation
import Hummingbird
import MockAPNsCore
import MockAPNsJournal
import MockAPNsDelivery

/// The delivery model's routes: devices online and offline and what is stored for them, and
/// each notification's delivery log.
extension ControlAPI {
    /// Under `/v1`: `GET devices`, `GET`/`PUT devices/{token}`, `GET delivery/{id}`.
    package var deliveryRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get("devices", use: handle(listDevices))
        routes.get("devices/:token", use: handle(showDevice))
        routes.put("devices/:token", use: handle(changeDevice))
        routes.get("delivery/:id", use: handle(deliveryLog))
        return routes
    }

    /// `GET /v1/devices`: every device that is offline or has notifications waiting, and the
    /// rules' numbers.
    fileprivate func listDevices(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The delivery model")
        _ = try ControlQuery(request, allowed: [])
        let devices = try await Self.asking { try await server.devices() }
        let options = server.deliveryOptions
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("devices")
        for device in devices { DeliveryJSON.write(device, into: &writer) }
        writer.endArray()
        writer.integer("batchDelayMilliseconds", options.batchDelayMilliseconds)
        writer.integer("maximumStorageMilliseconds", options.maximumStorageMilliseconds)
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// `GET /v1/devices/{token}`
    fileprivate func showDevice(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The delivery model")
        _ = try ControlQuery(request, allowed: [])
        let token = try Self.token(context)
        var writer = JSONWriter()
        let device = try await Self.asking { try await server.device(token) }
        DeliveryJSON.write(device, into: &writer)
        return ControlResponse.json(writer.text)
    }

    /// `PUT /v1/devices/{token}` with `{"online": false}` or `{"online": true}`.
    fileprivate func changeDevice(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The delivery model")
        _ = try ControlQuery(request, allowed: [])
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let online: Bool?
        do {
            online = try body?.bool("online")
        } catch {
            throw ControlAPIError(error)
        }
        try Self.finish(body, allowed: ["online"])
        guard let online else {
            throw ControlAPIError("online is required: true brings the device online (delivering what is stored), false takes it offline",
                                  parameter: "$.online")
        }
        var writer = JSONWriter()
        let device = try await Self.asking { try await server.setDevice(token, online: online) }
        DeliveryJSON.write(device, into: &writer)
        return ControlResponse.json(writer.text)
    }

    /// `GET /v1/delivery/{id}`: the delivery log of the notifications an `apns-unique-id`,
    /// an `apns-id` or a journal sequence number names.
    fileprivate func deliveryLog(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The delivery model")
        _ = try ControlQuery(request, allowed: [])
        let raw = context.parameters.get("id") ?? ""
        let id = raw.removingPercentEncoding ?? raw
        guard !id.isEmpty, id.count <= 100 else {
            throw ControlAPIError("the id is an apns-unique-id, an apns-id or a journal sequence number", parameter: "id")
        }
        let timelines = try await Self.asking { try await server.deliveryLog(id) }
        guard !timelines.isEmpty else {
            throw ControlAPIError(
                "no notification with apns-unique-id, apns-id or journal sequence \(id) is in the journal", parameter: "id",
                status: .notFound
            )
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("id", id)
        writer.beginArray("notifications")
        for timeline in timelines { DeliveryJSON.write(timeline, into: &writer) }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    /// `question`'s answer, or 503 when the delivery model is off (the only reason a delivery
    /// question fails).
    private static func asking<Answer>(_ question: () async throws -> Answer) async throws(ControlAPIError) -> Answer {
        do {
            return try await question()
        } catch {
            throw ControlAPIError(String(describing: error), status: .serviceUnavailable)
        }
    }
}
