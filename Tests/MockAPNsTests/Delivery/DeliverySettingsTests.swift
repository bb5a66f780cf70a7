import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsDelivery

/// The `delivery` settings: read from a configuration file with every mistake named by its
/// JSON path, refused at start when code sets what a file could not, and the serve command's
/// flags refusing bad values by name.
final class DeliverySettingsTests: XCTestCase {
    func testEveryKeyIsRead() throws {
        let configuration = try MockAPNsConfiguration.parse(json: """
            {"delivery": {"batchDelaySeconds": 1.5, "maximumStorageSeconds": 3600, "webhookUrl": "http://127.0.0.1:8080/push",
                          "forwardTimeoutSeconds": 2, "forwardSlowSeconds": 0.5, "forwardQueueLimit": 10,
                          "simulator": {"device": "booted", "devices": {"A1B2": "UDID-1"}, "command": ["/bin/stand-in", "{udid}"],
                                        "pushTypes": ["alert"]}}}
            """)
        let delivery = configuration.delivery
        XCTAssertEqual(delivery.options, DeliveryOptions(batchDelayMilliseconds: 1500, maximumStorageMilliseconds: 3_600_000))
        XCTAssertEqual(delivery.webhookURL, "http://127.0.0.1:8080/push")
        XCTAssertEqual(delivery.forwardTimeoutSeconds, 2)
        XCTAssertEqual(delivery.forwardSlowSeconds, 0.5)
        XCTAssertEqual(delivery.forwardQueueLimit, 10)
        XCTAssertEqual(delivery.simulator?.defaultDevice, "booted")
        XCTAssertEqual(delivery.simulator?.devices, ["a1b2": "UDID-1"])
        XCTAssertEqual(delivery.simulator?.command, ["/bin/stand-in", "{udid}"])
        XCTAssertEqual(delivery.simulator?.pushTypes, ["alert"])
        XCTAssertTrue(delivery.runsModel)
        XCTAssertNoThrow(try delivery.check())
        XCTAssertFalse(try MockAPNsConfiguration.parse(json: #"{"delivery": {"model": false}}"#).runsDeliveryModel)
    }

    func testTheDefaultsAreApplesOrSayWhy() throws {
        let delivery = try MockAPNsConfiguration.parse(json: "{}").delivery
        XCTAssertEqual(delivery.options.maximumStorageMilliseconds, 30 * 86_400_000, "Apple stores for 30 days or less")
        XCTAssertEqual(delivery.options.batchDelayMilliseconds, 0)
        XCTAssertNil(delivery.simulator)
        XCTAssertNil(delivery.webhookURL)
        XCTAssertEqual(MockAPNsConfiguration.SimulatorForwarding().command, ["xcrun", "simctl", "push", "{udid}", "{bundleId}", "-"])
    }

    func testMistakesNameTheirPath() {
        let cases: [(String, String)] = [
            (#"{"delivery": {"batchDelay": 1}}"#, "$.delivery.batchDelay"),
            (#"{"delivery": {"batchDelaySeconds": -1}}"#, "$.delivery.batchDelaySeconds"),
            (#"{"delivery": {"webhookUrl": "https://example.test/push"}}"#, "$.delivery.webhookUrl"),
            (#"{"delivery": {"webhookUrl": 8080}}"#, "$.delivery.webhookUrl"),
            (#"{"delivery": {"forwardTimeoutSeconds": 0}}"#, "$.delivery.forwardTimeoutSeconds"),
            (#"{"delivery": {"forwardQueueLimit": 0}}"#, "$.delivery.forwardQueueLimit"),
            (#"{"delivery": {"simulator": {"command": []}}}"#, "$.delivery.simulator.command"),
            (#"{"delivery": {"simulator": {"command": ["", "x"]}}}"#, "$.delivery.simulator.command"),
            (#"{"delivery": {"simulator": {"pushTypes": ["fax"]}}}"#, "$.delivery.simulator.pushTypes"),
            (#"{"delivery": {"simulator": {"devices": {"not-hex": "UDID"}}}}"#, "$.delivery.simulator.devices"),
            (#"{"delivery": {"simulator": {"udid": "booted"}}}"#, "$.delivery.simulator.udid"),
        ]
        for (text, path) in cases {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertEqual((error as? JSONFileError)?.path, path, "\(text): \(error)")
            }
        }
    }

    func testAServerRefusesToStartWithAWebhookItCannotReach() async throws {
        let server = MockAPNsServer(configuration: TestServer.configuration { $0.deliveryWebhookURL = "https://example.test/push" })
        do {
            try await server.start()
            XCTFail("the server started")
        } catch {
            XCTAssertTrue("\(error)".contains("delivery.webhookUrl"), "\(error)")
            XCTAssertTrue("\(error)".contains("plain HTTP"), "\(error)")
        }
        try await server.shutdown()
    }

    /// Off, nothing after the answer is modelled or recorded, and every question about it is
    /// refused by name rather than answered as if every device were fine.
    func testTheModelCanBeTurnedOffForLoadTests() async throws {
        var forwarding = MockAPNsConfiguration.DeliverySettings()
        forwarding.runsModel = false
        forwarding.webhookURL = "http://127.0.0.1:9/push"
        XCTAssertThrowsError(try forwarding.check()) { error in
            XCTAssertTrue("\(error)".contains("delivery.model"), "\(error)")
        }

        let (server, ports) = try await TestServer.start { configuration in
            configuration.runsDeliveryModel = false
            configuration.controlPort = 0
        }
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200, "the answers are the same")
        let recorded = try await server.journal.waitForNotifications(count: 1, timeout: .seconds(10))
        XCTAssertEqual(recorded.count, 1)
        await server.catchUpDelivery()
        XCTAssertEqual(server.journal.events(matching: JournalEventFilter(kinds: ["delivery"])).count, 0)
        do {
            _ = try await server.devices()
            XCTFail("answered with the model off")
        } catch {
            XCTAssertEqual(error, .deliveryModelOff)
            XCTAssertTrue(error.description.contains("--delivery-model off"), error.description)
        }
        let refused = try ProcessRunner.run("curl", ["-sS", "-w", "\n%{http_code}", "http://127.0.0.1:\(ports.control ?? 0)/v1/delivery/1"])
        XCTAssertTrue(refused.stdout.hasSuffix("503"), refused.stdout)
        XCTAssertTrue(refused.stdout.contains("the delivery model is off"), refused.stdout)
        try await server.shutdown()
    }

    func testServeRefusesBadForwardingFlagsByName() throws {
        let cases: [([String], String)] = [
            (["--forward-url", "ftp://127.0.0.1/"], "--forward-url"),
            (["--forward-simulator", "xyz=UDID"], "--forward-simulator"),
            (["--forward-simulator-command", "stand-in {udid}"], "--forward-simulator"),
            (["--batch-delay", "-1"], "--batch-delay"),
            (["--forward-timeout", "0"], "--forward-timeout"),
            (["--delivery-model", "off", "--forward-url", "http://127.0.0.1:9/push"], "delivery.model"),
            (["--delivery-model", "maybe"], "--delivery-model"),
        ]
        for (flags, named) in cases {
            let result = try ProcessRunner.run(Fixtures.executable, ["serve", "--http2-port", "0", "--cert-dir", Fixtures.certificateDirectory] + flags)
            XCTAssertNotEqual(result.status, 0, "\(flags)")
            XCTAssertTrue(result.stderr.contains(named), "\(flags): \(result.stderr)")
        }
    }
}
