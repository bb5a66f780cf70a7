import Foundation
import MockAPNs
import MockAPNsTestSupport
import XCTest

/// `mockapns session create|list|end` against a running server: the folder it writes is what a
/// provider pushes with (a key folder for `mockapns token`, a client certificate), and the
/// control token it writes sees the session alone.
final class SessionCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    func testCreateWritesCredentialsAProviderPushesWithThenListAndEnd() async throws {
        let control = "http://127.0.0.1:\(try XCTUnwrap(ports.control))"
        let folder = Fixtures.temporaryPath("session-cli")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }

        let created = try ProcessRunner.run(executable, ["session", "create", "--control", control, "--topic", "com.example.app", "--out", folder])
        XCTAssertEqual(created.status, 0, created.stderr)
        let id = try XCTUnwrap(server.sessionIDs.first)
        XCTAssertTrue(created.stdout.hasPrefix("session \(id): team "), created.stdout)
        let token = try String(contentsOfFile: folder + "/control-token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(created.stdout.contains(token), "the token is written to its file, never printed")
        let permissions = try FileManager.default.attributesOfItem(atPath: folder + "/control-token")[.posixPermissions] as? Int
        XCTAssertEqual(permissions, 0o600)

        // The key folder signs a token the server takes as the session's; the certificate connects as it too.
        let keyFile = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("AuthKey_") })
        let keyID = String(keyFile.dropFirst("AuthKey_".count).dropLast(".p8".count))
        let jwt = try ProcessRunner.run(executable, ["token", "--key-dir", folder, "--key-id", keyID])
        XCTAssertEqual(jwt.status, 0, jwt.stderr)
        var tokenClient = CurlClient(port: ports.http2)
        tokenClient.certificate = nil
        let byToken = try tokenClient.send(
            path: "/3/device/\(Fixtures.token)",
            headers: [("apns-topic", "com.example.app"), ("authorization", "bearer " + jwt.stdout.trimmingCharacters(in: .whitespacesAndNewlines))])
        XCTAssertEqual(byToken.status, 200, byToken.body)
        var certificateClient = CurlClient(port: ports.http2)
        certificateClient.certificate = nil
        certificateClient.extraArguments = ["--cert", folder + "/client-session.pem", "--key", folder + "/client-session-key.pem"]
        XCTAssertEqual(try certificateClient.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")]).status, 200)
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(session: id), timeout: .seconds(10))
        XCTAssertEqual(records.count, 2)

        let listed = try ProcessRunner.run(executable, ["session", "list", "--control", control, "--control-token", token])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.hasPrefix(id + "  "), listed.stdout)

        let ended = try ProcessRunner.run(executable, ["session", "end", id, "--control", control, "--control-token", token])
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertEqual(ended.stdout, "session \(id) ended\n")
        XCTAssertEqual(server.sessionIDs, [])
        let again = try ProcessRunner.run(executable, ["session", "end", id, "--control", control])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("HTTP 404: no session \(id)"), again.stderr)
    }
}
