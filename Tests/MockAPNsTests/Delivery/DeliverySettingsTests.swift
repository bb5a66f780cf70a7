import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import XCTest

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
        XCTAssertNoThrow(try delivery.check())
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
        let server = MockAPNsServer(configuration: TestServer.configuration { $0.delivery.webhookURL = "https://example.test/push" })
        do {
            try await server.start()
            XCTFail("the server started")
        } catch {
            XCTAssertTrue("\(error)".contains("delivery.webhookUrl"), "\(error)")
            XCTAssertTrue("\(error)".contains("plain HTTP"), "\(error)")
        }
        try await server.shutdown()
    }

    func testServeRefusesBadForwardingFlagsByName() throws {
        let cases: [([String], String)] = [
            (["--forward-url", "ftp://127.0.0.1/"], "--forward-url"),
            (["--forward-simulator", "xyz=UDID"], "--forward-simulator"),
            (["--forward-simulator-command", "stand-in {udid}"], "--forward-simulator"),
            (["--batch-delay", "-1"], "--batch-delay"),
            (["--forward-timeout", "0"], "--forward-timeout"),
        ]
        for (flags, named) in cases {
            let result = try ProcessRunner.run(Fixtures.executable, ["serve", "--http2-port", "0", "--cert-dir", Fixtures.certificateDirectory] + flags)
            XCTAssertNotEqual(result.status, 0, "\(flags)")
            XCTAssertTrue(result.stderr.contains(named), "\(flags): \(result.stderr)")
        }
    }
}
