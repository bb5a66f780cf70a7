@testable import MockAPNs
import MockAPNsCore
import XCTest
import MockAPNsLegacy

/// The `legacy` configuration keys, the reported ports, and the churn rule, without sockets.
final class LegacyConfigurationTests: XCTestCase {
    func testDefaultsAreApplesButThePortsAreFree() throws {
        // An embedded server binds free ports; `mockapns serve` sets Apple's 2195 and 2196.
        let legacy = try MockAPNsConfiguration.parse(json: "{}").legacy
        XCTAssertEqual(legacy.gatewayPort, 0)
        XCTAssertEqual(legacy.feedbackPort, 0)
        XCTAssertFalse(legacy.allowOldTLS)
        XCTAssertEqual(legacy.parseErrorPolicy, .silentClose)
        XCTAssertEqual(legacy.sessionOptions.limits, LegacyLimits.standard)
    }

    func testEveryLegacyKeyIsRead() throws {
        let text = """
        {"legacy": {"gatewayPort": 0, "feedbackPort": 12196, "allowOldTLS": true, "parseErrorPolicy": "statusPacket",
                    "tokenLength": 100, "variableTokenLength": true, "maximumPayloadLength": 256}}
        """
        let legacy = try MockAPNsConfiguration.parse(json: text).legacy
        XCTAssertEqual(legacy.gatewayPort, 0)
        XCTAssertEqual(legacy.feedbackPort, 12196)
        XCTAssertTrue(legacy.allowOldTLS)
        XCTAssertEqual(legacy.sessionOptions.parseErrorPolicy, .statusPacket)
        XCTAssertEqual(legacy.sessionOptions.limits, LegacyLimits(tokenLength: .atMost(100), maximumPayloadLength: 256))
    }

    func testOldTLSMeansTLS1AtSecurityLevel0AndNeverTLS13() {
        var configuration = MockAPNsConfiguration()
        var tls = configuration.legacyListenerSettings(.sandbox).tls
        XCTAssertEqual(tls.minimumVersion, .tlsv12)
        XCTAssertEqual(tls.maximumVersion, .tlsv12)
        XCTAssertEqual(tls.clientCertificate, .require)
        XCTAssertNil(tls.securityLevel)
        configuration.legacy.allowOldTLS = true
        tls = configuration.legacyListenerSettings(.sandbox).tls
        XCTAssertEqual(tls.minimumVersion, .tlsv1)
        XCTAssertEqual(tls.maximumVersion, .tlsv12)
        XCTAssertEqual(tls.securityLevel, 0)
    }

    func testLegacyMistakesNameTheirPath() {
        let cases: [(String, String)] = [
            (#"{"legacy": {"gatewayPort": 70000}}"#, "$.legacy.gatewayPort"),
            (#"{"legacy": {"parseErrorPolicy": "status128"}}"#, "$.legacy.parseErrorPolicy"),
            (#"{"legacy": {"tokenLength": 101}}"#, "$.legacy.tokenLength"),
            (#"{"legacy": {"maximumPayloadLength": 0}}"#, "$.legacy.maximumPayloadLength"),
            (#"{"legacy": {"allowOldTls": true}}"#, "$.legacy.allowOldTls"),
            (#"{"legacy": 2195}"#, "$.legacy"),
        ]
        for (text, path) in cases {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertEqual((error as? JSONFileError)?.path, path, text)
            }
        }
    }

    func testBoundPortsNameEveryListener() throws {
        let ports = BoundPorts(http2: 2197, gateway: 2195, feedback: 2196)
        XCTAssertEqual(ports.summary(host: "127.0.0.1"), "http2=127.0.0.1:2197 gateway=127.0.0.1:2195 feedback=127.0.0.1:2196")
        XCTAssertEqual(ports.json, #"{"http2":2197,"gateway":2195,"feedback":2196}"#)
        XCTAssertEqual(BoundPorts(http2: 1).json, #"{"http2":1}"#)
    }

    // MARK: Connection churn

    private let second: UInt64 = 1_000_000_000

    func testTenOneNotificationConnectionsInTenSecondsAreChurn() {
        var detector = LegacyChurnDetector()
        for index in 0..<9 {
            XCTAssertNil(detector.connectionClosed(notifications: 1, at: UInt64(index) * second))
        }
        let diagnosis = detector.connectionClosed(notifications: 0, at: 9 * second)
        XCTAssertEqual(diagnosis, .connectionChurn(connections: 10, seconds: 10, notificationsPerConnection: 0.9))
    }

    func testChurnIsReportedOncePerWindow() {
        var detector = LegacyChurnDetector()
        var reports = 0
        // Five connections a second for 25 seconds.
        for tick in 0..<125 {
            if detector.connectionClosed(notifications: 1, at: UInt64(tick) * second / 5) != nil { reports += 1 }
        }
        XCTAssertEqual(reports, 3, "at 1.8 s, then no sooner than 10 s later each time")
    }

    func testSlowOrBusyConnectionsAreNotChurn() {
        var slow = LegacyChurnDetector()
        for index in 0..<30 {
            XCTAssertNil(slow.connectionClosed(notifications: 1, at: UInt64(index) * 2 * second), "one every 2 s")
        }
        var busy = LegacyChurnDetector()
        for index in 0..<30 {
            XCTAssertNil(busy.connectionClosed(notifications: 50, at: UInt64(index) * second / 10), "many notifications each")
        }
    }
}
