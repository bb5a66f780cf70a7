import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import XCTest
import MockAPNsBroadcast

/// `/v1/channels` and `/v1/events?channel=` of the control API over real HTTP, driven by curl.
final class ControlChannelTests: XCTestCase {
    private func call(_ port: Int, _ method: String, _ path: String, body: String? = nil) throws -> ControlClient.Reply {
        try ControlClient(port: port).call(method, path, body: body)
    }

    func testChannelsAreListedCreatedDeletedAndTheirEventsFiltered() async throws {
        let seeded = BroadcastChannel(id: "c29tZS9DaGFubmVsKw==", bundleID: "com.example.app", environment: .sandbox, storagePolicy: .mostRecentMessageStored)
        let (server, ports) = try await TestServer.start {
            $0.controlPort = 0
            $0.broadcast.channels = [seeded]
        }
        let control = try XCTUnwrap(ports.control)
        let listed = try call(control, "GET", "/v1/channels?bundleId=com.example.app")
        XCTAssertEqual((listed.json["channels"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [seeded.id])
        let production = try call(control, "GET", "/v1/channels?environment=production").json["channels"] as? [[String: Any]]
        XCTAssertEqual(production?.count, 0)
        XCTAssertEqual(try call(control, "GET", "/v1/channels?colour=red").status, 400)

        let made = try call(control, "POST", "/v1/channels", body: #"{"bundleId": "com.example.app", "messageStoragePolicy": 0}"#)
        XCTAssertEqual(made.status, 201)
        let id = try XCTUnwrap(made.json["id"] as? String)
        XCTAssertEqual(made.json["messageStoragePolicy"] as? Int, 0)
        XCTAssertEqual(server.channels.channel(id: id, bundleID: "com.example.app", environment: .sandbox)?.storagePolicy, .noMessageStored)
        XCTAssertEqual(try call(control, "POST", "/v1/channels", body: #"{"messageStoragePolicy": 0}"#).json["parameter"] as? String, "$.bundleId")
        XCTAssertEqual(try call(control, "POST", "/v1/channels", body: #"{"bundleId": "a", "id": "no!"}"#).json["parameter"] as? String, "$.id")

        let provider = CurlClient(port: ports.http2)
        for channel in [seeded.id, id] {
            let sent = try provider.send(path: "/4/broadcasts/apps/com.example.app",
                                         headers: [("apns-channel-id", channel), ("apns-push-type", "liveactivity")], body: #"{"aps":{}}"#)
            XCTAssertEqual(sent.status, 200, sent.body)
        }
        let encoded = try XCTUnwrap(seeded.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let events = try XCTUnwrap(try call(control, "GET", "/v1/events?channel=\(encoded)").json["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual((events.first?["broadcast"] as? [String: Any])?["channelId"] as? String, seeded.id)

        XCTAssertEqual(try call(control, "DELETE", "/v1/channels/\(encoded)").json["deleted"] as? Bool, true)
        XCTAssertEqual(try call(control, "DELETE", "/v1/channels/\(encoded)").status, 404)
        XCTAssertEqual(server.channels.all.map(\.id), [id])
        try await server.shutdown()
    }
}
