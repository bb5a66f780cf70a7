import MockAPNsCore
import XCTest
import MockAPNsDelivery

/// What the forwarders decide before any process or socket: which notifications go to a
/// simulator and with which command, where a webhook is, and what it is sent.
final class ForwardingRulesTests: XCTestCase {
    private func delivered(token: String = "a1b2", topic: String? = "com.example.app", pushType: String? = "alert",
                           payload: String = #"{"aps":{"alert":"hi"}}"#) -> DeliveryNotification {
        DeliveryNotification(sequence: 9, deviceToken: token, topic: topic, pushType: pushType, priority: 10, apnsID: "ID",
                             uniqueID: "u", payload: Array(payload.utf8), receivedAtMilliseconds: 1000)
    }

    func testTheSimulatorGetsAppleCommandWithTheBundleID() {
        let command = SimulatorPushCommand(defaultDevice: "booted")
        XCTAssertEqual(command.decision(for: delivered(topic: "com.example.app")),
                       .run(arguments: ["xcrun", "simctl", "push", "booted", "com.example.app", "-"], udid: "booted", bundleID: "com.example.app"))
        // The bundle id is the topic without its push-type suffix; no push type counts as alert.
        XCTAssertEqual(command.decision(for: delivered(topic: "com.example.app", pushType: nil)),
                       .run(arguments: ["xcrun", "simctl", "push", "booted", "com.example.app", "-"], udid: "booted", bundleID: "com.example.app"))
        XCTAssertEqual(command.decision(for: delivered(pushType: "background")),
                       .run(arguments: ["xcrun", "simctl", "push", "booted", "com.example.app", "-"], udid: "booted", bundleID: "com.example.app"))
    }

    func testTheSimulatorTakesOnlyTheTypesItSimulatesAndTheTokensItIsGiven() {
        let mapped = SimulatorPushCommand(defaultDevice: nil, devices: ["A1B2": "UDID-1"])
        XCTAssertEqual(mapped.decision(for: delivered(topic: "com.example.app.voip", pushType: "voip")), .skip)
        XCTAssertEqual(mapped.decision(for: delivered(token: "ffff")), .skip, "no simulator for this token")
        XCTAssertEqual(mapped.decision(for: delivered(token: "a1b2")),
                       .run(arguments: ["xcrun", "simctl", "push", "UDID-1", "com.example.app", "-"], udid: "UDID-1", bundleID: "com.example.app"))
        let both = SimulatorPushCommand(defaultDevice: "booted", devices: ["a1b2": "UDID-1"], pushTypes: ["alert", "liveactivity"])
        XCTAssertEqual(both.decision(for: delivered(token: "cccc")),
                       .run(arguments: ["xcrun", "simctl", "push", "booted", "com.example.app", "-"], udid: "booted", bundleID: "com.example.app"))
        XCTAssertEqual(both.decision(for: delivered(topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity")),
                       .run(arguments: ["xcrun", "simctl", "push", "UDID-1", "com.example.app", "-"], udid: "UDID-1", bundleID: "com.example.app"))
        XCTAssertEqual(both.decision(for: delivered(pushType: "background")), .skip)
    }

    func testANotificationWithoutATopicCannotReachASimulator() {
        guard case .cannotSend(let why) = SimulatorPushCommand(defaultDevice: "booted").decision(for: delivered(topic: nil)) else {
            return XCTFail("expected cannotSend")
        }
        XCTAssertTrue(why.contains("bundle id"), why)
    }

    func testTheCommandIsATemplate() {
        let command = SimulatorPushCommand(defaultDevice: "booted", template: ["/tmp/stand-in", "--to={udid}/{bundleId}", "{udid}{udid}", "{other}"])
        XCTAssertEqual(command.decision(for: delivered()),
                       .run(arguments: ["/tmp/stand-in", "--to=booted/com.example.app", "bootedbooted", "{other}"], udid: "booted", bundleID: "com.example.app"))
        XCTAssertTrue(SimulatorPushCommand.isDeviceToken("A1b2"))
        XCTAssertFalse(SimulatorPushCommand.isDeviceToken("a1g2"))
        XCTAssertFalse(SimulatorPushCommand.isDeviceToken(""))
    }

    func testWebhookAddresses() {
        let table: [(String, WebhookAddress.Parts?)] = [
            ("http://127.0.0.1:8080/push", .init(host: "127.0.0.1", port: 8080, path: "/push")),
            ("http://localhost", .init(host: "localhost", port: 80, path: "/")),
            ("http://localhost?x=1", .init(host: "localhost", port: 80, path: "/?x=1")),
            ("http://[::1]:9000/a/b?c", .init(host: "::1", port: 9000, path: "/a/b?c")),
            ("https://127.0.0.1:8080/push", nil),
            ("ftp://127.0.0.1/", nil),
            ("http://", nil),
            ("http://host:0/", nil),
            ("http://host:99999/", nil),
            ("http://host:port/", nil),
            ("http://user:secret@host/", nil),
            ("http://host/a b", nil),
        ]
        for (url, expected) in table {
            let address = WebhookAddress(url)
            XCTAssertEqual(address.map { WebhookAddress.Parts(host: $0.host, port: $0.port, path: $0.path) }, expected, url)
            XCTAssertEqual(WebhookAddress.problem(with: url) == nil, expected != nil, url)
        }
        XCTAssertTrue(WebhookAddress.problem(with: "https://x/")?.contains("plain HTTP") ?? false)
        XCTAssertEqual(WebhookAddress("http://[::1]:9000/")?.hostHeader, "[::1]:9000")
        XCTAssertEqual(WebhookAddress("http://example.test/")?.hostHeader, "example.test")
    }

    func testTheWebhookGetsTheNotificationAsJSON() {
        let json = DeliveredNotification(notification: delivered(), deliveredAtMilliseconds: 2000, fromStorage: true).json
        XCTAssertEqual(json, #"{"notification":9,"transport":"http2","deviceToken":"a1b2","topic":"com.example.app","bundleId":"com.example.app","#
            + #""pushType":"alert","priority":10,"apnsId":"ID","uniqueId":"u","receivedAt":1000,"deliveredAt":2000,"fromStorage":true,"#
            + #""payload":{"aps":{"alert":"hi"}}}"#)
        XCTAssertTrue(DeliveredNotification(notification: delivered(payload: "not json"), deliveredAtMilliseconds: 0, fromStorage: false)
            .json.hasSuffix(#""payloadText":"not json"}"#))
        var binary = delivered()
        binary.payload = [0xFF, 0x00]
        XCTAssertTrue(DeliveredNotification(notification: binary, deliveredAtMilliseconds: 0, fromStorage: false).json.hasSuffix(#""payloadHex":"ff00"}"#))
    }
}

extension WebhookAddress {
    /// The three parts, comparable, for the table above.
    struct Parts: Equatable {
        var host: String
        var port: Int
        var path: String
    }
}
