import MockAPNsLogging
import MockAPNsObservation
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The access log on real sockets: curl pushes over TLS, and the lines say who connected,
/// what each notification was and how it ended, in text and in JSON.
final class AccessLogTests: XCTestCase {
    /// A server whose access log goes to a fresh file; returns the file's path too.
    private func start(format: LogFormat) async throws -> (MockAPNsServer, BoundPorts, String) {
        let path = Fixtures.temporaryPath("access.log")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        addTeardownBlock { close(descriptor); unlink(path) }
        let (server, ports) = try await TestServer.start {
            $0.accessLog = MockAPNsConfiguration.AccessLogSettings(format: format, output: LogOutput(descriptor: descriptor))
        }
        return (server, ports, path)
    }

    /// Pushes one good and one bad notification, each on its own connection, and waits until
    /// both connections are closed and the access log has caught up.
    private func pushTwice(_ server: MockAPNsServer, _ ports: BoundPorts) async throws {
        let client = CurlClient(port: ports.http2, certificate: "sandbox")
        XCTAssertEqual(try client.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]).status, 200)
        XCTAssertEqual(try client.send(path: "/3/device/0123", headers: [("apns-topic", "com.example.app")]).status, 400)
        let closed = await server.journal.waitForEvents(count: 2, timeout: .seconds(5)) { event in
            if case .connectionClosed = event.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 2)
        // A scrape reads every event recorded so far, the access log's included.
        _ = await server.metricsText()
    }

    func testTextLinesForConnectionsAndNotifications() async throws {
        let (server, ports, path) = try await start(format: .text)
        try await pushTwice(server, ports)
        try await server.shutdown()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)

        let opens = lines.filter { $0.contains(" info open c") }
        XCTAssertEqual(opens.count, 2, lines.joined(separator: "\n"))
        XCTAssertTrue(opens[0].contains(" http2 from 127.0.0.1:"), opens[0])
        XCTAssertTrue(opens[0].contains("TLSv1.3"), opens[0])
        XCTAssertTrue(opens[0].contains("certificate \""), opens[0])
        XCTAssertTrue(opens[0].contains("com.example.app"), opens[0])

        let pushes = lines.filter { $0.contains(" info push c") }
        XCTAssertEqual(pushes.count, 2, lines.joined(separator: "\n"))
        let good = try XCTUnwrap(pushes.first)
        XCTAssertNotNil(good.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info push c\d+/s1 http2 token=a1b2c3d4 topic=com\.example\.app type=alert 200 \d+us$"#, options: .regularExpression), good)
        XCTAssertNotNil(pushes[1].range(of: #"push c\d+/s1 http2 token=0123 topic=com\.example\.app type=- 400 BadDeviceToken \d+us$"#, options: .regularExpression), pushes[1])

        let closes = lines.filter { $0.contains(" info close c") }
        XCTAssertEqual(closes.count, 2, lines.joined(separator: "\n"))
        XCTAssertNotNil(closes[0].range(of: #"close c\d+ http2 by client after \d+\.\d+s, 1 notifications"#, options: .regularExpression), closes[0])
    }

    func testJSONLinesCarryEveryField() async throws {
        let (server, ports, path) = try await start(format: .json)
        try await pushTwice(server, ports)
        try await server.shutdown()
        let objects = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        XCTAssertEqual(objects.count, 6, "two connections: open, push, close each")
        let pushes = objects.filter { $0["access"] as? String == "push" }
        let good = try XCTUnwrap(pushes.first)
        XCTAssertEqual(good["level"] as? String, "info")
        XCTAssertEqual(good["protocol"] as? String, "http2")
        XCTAssertEqual(good["token"] as? String, "a1b2c3d4")
        XCTAssertEqual(good["topic"] as? String, "com.example.app")
        XCTAssertEqual(good["pushType"] as? String, "alert")
        XCTAssertEqual(good["status"] as? Int, 200)
        XCTAssertEqual(good["stream"] as? Int, 1)
        XCTAssertEqual(good["authentication"] as? String, "certificate")
        XCTAssertGreaterThanOrEqual(good["micros"] as? Int ?? -1, 0)
        XCTAssertNotNil((good["time"] as? String)?.range(of: #"Z$"#, options: .regularExpression))
        XCTAssertEqual(pushes.last?["reason"] as? String, "BadDeviceToken")
        XCTAssertEqual(pushes.last?["status"] as? Int, 400)
        let open = try XCTUnwrap(objects.first { $0["access"] as? String == "open" })
        XCTAssertEqual(open["tls"] as? String, "TLSv1.3")
        XCTAssertEqual(open["alpn"] as? String, "h2")
        let close = try XCTUnwrap(objects.first { $0["access"] as? String == "close" })
        XCTAssertEqual(close["closedBy"] as? String, "client")
        XCTAssertEqual(close["notifications"] as? Int, 1)
    }

    /// `POST /nope` with a provider token and no `apns-topic`: the answer is 404 BadPath, and
    /// what the record and the line give as its cause is the path, not what the credentials
    /// lacked (the token's own refusal is kept in the record's authentication).
    func testABadPathIsExplainedByItsPathNotByTheCredentials() async throws {
        let (server, ports, path) = try await start(format: .text)
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        let jwt = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: Int64(Date().timeIntervalSince1970))
        let answer = try CurlClient(port: ports.http2, certificate: nil).send(path: "/nope", headers: [("authorization", "bearer \(jwt)")])
        XCTAssertEqual(answer.status, 404)
        XCTAssertTrue(answer.body.contains("BadPath"), answer.body)
        let records = try await server.waitForNotifications(count: 1)
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.reason, .badPath)
        XCTAssertEqual(record.problem, "no endpoint serves POST /nope: a push goes to POST /3/device/<device token>")
        XCTAssertEqual(record.authentication.refusal, .missingTopic, "the credentials' refusal stays in the record")
        try await server.shutdown()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let push = try XCTUnwrap(lines.first { $0.contains(" push c") }, lines.joined(separator: "\n"))
        XCTAssertTrue(push.contains(" 404 BadPath ") && push.hasSuffix(": no endpoint serves POST /nope: a push goes to POST /3/device/<device token>"), push)
        XCTAssertFalse(push.contains("apns-topic"), push)
    }

    /// A provider verdict gets a line of its own, in text and in JSON.
    func testAVerdictHasALine() async throws {
        for format in [LogFormat.text, .json] {
            let (server, ports, path) = try await start(format: format)
            let client = CurlClient(port: ports.http2, certificate: "sandbox")
            for _ in 0..<2 {
                XCTAssertEqual(try client.send(path: "/3/device/0123", headers: [("apns-topic", "com.example.app")]).status, 400)
            }
            let report = await server.verdictReport()  // takes in the events and records the finding
            XCTAssertEqual(report?.brokenRules, [.permanentRetry])
            try await server.shutdown()
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            let verdicts = lines.filter { $0.contains("verdict c") }
            XCTAssertEqual(verdicts.count, 1, lines.joined(separator: "\n"))
            switch format {
            case .text:
                XCTAssertNotNil(verdicts[0].range(of: #"info verdict c\d+ permanent-retry retriedPermanentRefusal provider="certificate [^"]+com\.example\.app": sent the notification for token 0123 again \d+ ms after it was refused 400 BadDeviceToken; Apple says not to retry it \[#\d+ #\d+\]$"#, options: .regularExpression), verdicts[0])
            case .json:
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(verdicts[0].utf8)) as? [String: Any])
                XCTAssertEqual(object["access"] as? String, "verdict")
                XCTAssertEqual(object["rule"] as? String, "permanent-retry")
                XCTAssertEqual(object["check"] as? String, "retriedPermanentRefusal")
                XCTAssertEqual(object["token"] as? String, "0123")
                XCTAssertEqual((object["notifications"] as? [Int])?.count, 2)
                XCTAssertTrue((object["provider"] as? String)?.hasPrefix("certificate ") == true, "\(object)")
            }
        }
    }

    /// An embedded server writes no access log unless asked.
    func testEmbeddedServersAreQuietByDefault() {
        XCTAssertNil(MockAPNsConfiguration().accessLog)
    }
}
