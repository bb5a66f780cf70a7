import Foundation
import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

final class ClientCertificateTests: TLSTestCase {
    // MARK: .request

    func testRequestModeWithoutCertificateReportsNotPresented() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        try await client.send(Array("ping".utf8))
        try await client.recorder.wait { $0.received.count >= 4 }

        let session = try XCTUnwrap(server.recorder.snapshot.completed.first)
        XCTAssertEqual(session.peerCertificate, .notPresented)
        XCTAssertTrue(session.peerCertificateChainDER.isEmpty)
        try await client.channel.close()
        try await server.stop()
    }

    func testRequestModeWithTrustedCertificateReportsTrustedWithDERChain() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        let client = try await TestClient.connect(
            group: group, port: server.port,
            configuration: clientConfiguration(certificate: fixtures.clientCertificate, key: fixtures.clientKey)
        )
        try await client.send(Array("ping".utf8))
        try await client.recorder.wait { $0.received.count >= 4 }

        let session = try XCTUnwrap(server.recorder.snapshot.completed.first)
        XCTAssertEqual(session.peerCertificate, .trusted)
        XCTAssertEqual(session.peerCertificateChainDER, [try derOfCertificate(at: fixtures.clientCertificate)])
        try await client.channel.close()
        try await server.stop()
    }

    func testRequestModeWithForeignCertificateCompletesAsUntrusted() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        let client = try await TestClient.connect(
            group: group, port: server.port,
            configuration: clientConfiguration(certificate: fixtures.foreignClientCertificate, key: fixtures.foreignClientKey)
        )
        try await client.send(Array("ping".utf8))
        try await client.recorder.wait { $0.received.count >= 4 }

        let session = try XCTUnwrap(server.recorder.snapshot.completed.first)
        XCTAssertEqual(session.peerCertificate, .untrusted(reason: "unable to get local issuer certificate"))
        XCTAssertEqual(session.peerCertificateChainDER.count, 1)
        try await client.channel.close()
        try await server.stop()
    }

    func testRequestModeRefusesExpiredCertificateWithCertificateExpired() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        // With TLS 1.3 the client finishes its side of the handshake before the server checks
        // the certificate, so the alert reaches it as the first thing it reads.
        let client = try await TestClient.connect(
            group: group, port: server.port,
            configuration: clientConfiguration(certificate: fixtures.expiredClientCertificate, key: fixtures.expiredClientKey)
        )
        let clientSide = try await client.recorder.wait { !$0.errors.isEmpty && $0.inactiveCount == 1 }
        XCTAssertTrue(clientSide.errors.first?.contains("certificate_expired (45)") ?? false, "\(clientSide.errors)")

        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertSent, .certificateExpired)
        XCTAssertEqual(serverSide.failed.first?.reason, "client certificate has expired")
        XCTAssertTrue(serverSide.completed.isEmpty)
        try await server.stop()
    }

    func testExpiredCertificateSeenByOpenSSLClient() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        let result = openSSLClient(port: server.port, [
            "-cert", fixtures.expiredClientCertificate, "-key", fixtures.expiredClientKey, "-tls1_2",
        ])
        XCTAssertTrue(result.output.contains("certificate expired"), result.output)
        try await server.stop()
    }

    func testTLS12ClientSeesCertificateExpiredDuringHandshake() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        var configuration = try clientConfiguration(certificate: fixtures.expiredClientCertificate, key: fixtures.expiredClientKey)
        configuration.maximumVersion = .tlsv12
        let client = try await TestClient.connect(group: group, port: server.port, configuration: configuration)
        let clientSide = try await client.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(clientSide.failed.first?.alertReceived, .certificateExpired)
        try await server.stop()
    }

    // MARK: .require

    func testRequireModeRefusesClientWithoutCertificate() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .require))
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        try await client.recorder.wait { !$0.errors.isEmpty && $0.inactiveCount == 1 }

        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertSent, .certificateRequired)
        XCTAssertEqual(serverSide.failed.first?.reason, "client presented no certificate; this listener requires one")
        try await server.stop()
    }

    func testRequireModeOverTLS12SendsHandshakeFailure() async throws {
        var serverConfiguration = try serverConfiguration(clientCertificate: .require)
        serverConfiguration.maximumVersion = .tlsv12
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration)
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        let clientSide = try await client.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(clientSide.failed.first?.alertReceived, .handshakeFailure)
        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertSent, .handshakeFailure)
        try await server.stop()
    }

    func testRequireModeRefusesForeignCertificateWithUnknownCA() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .require))
        let client = try await TestClient.connect(
            group: group, port: server.port,
            configuration: clientConfiguration(certificate: fixtures.foreignClientCertificate, key: fixtures.foreignClientKey)
        )
        try await client.recorder.wait { !$0.errors.isEmpty && $0.inactiveCount == 1 }
        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertSent, .unknownCA)
        XCTAssertEqual(serverSide.failed.first?.reason, "client certificate is not trusted: unable to get local issuer certificate")
        try await server.stop()
    }

    func testRequireModeAcceptsTrustedCertificate() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .require))
        let client = try await TestClient.connect(
            group: group, port: server.port,
            configuration: clientConfiguration(certificate: fixtures.clientCertificate, key: fixtures.clientKey)
        )
        try await client.send(Array("ping".utf8))
        try await client.recorder.wait { $0.received.count >= 4 }
        XCTAssertEqual(server.recorder.snapshot.completed.first?.peerCertificate, .trusted)
        try await client.channel.close()
        try await server.stop()
    }

    private func derOfCertificate(at path: String) throws -> [UInt8] {
        let output = try fixtures().path("der-\(UUID().uuidString)")
        let result = ExternalCommand.run("/usr/bin/env", ["openssl", "x509", "-in", path, "-outform", "DER", "-out", output], timeout: 10)
        XCTAssertEqual(result.status, 0, result.output)
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }
}

final class SessionResumptionTests: TLSTestCase {
    /// Real clients (curl, Python) resume sessions; the client certificate and its outcome
    /// must survive resumption.
    func testResumedSessionKeepsClientCertificateOutcome() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(clientCertificate: .request))
        let sessionFile = fixtures.path("session-\(UUID().uuidString).pem")
        for (index, sessionArgument) in [["-sess_out", sessionFile], ["-sess_in", sessionFile]].enumerated() {
            let result = openSSLClient(port: server.port, [
                "-cert", fixtures.foreignClientCertificate, "-key", fixtures.foreignClientKey,
                "-ign_eof", "-quiet",
            ] + sessionArgument, input: "close")
            XCTAssertEqual(result.status, 0, result.output)
            try await server.recorder.wait { $0.completed.count == index + 1 }
        }
        let sessions = server.recorder.snapshot.completed
        XCTAssertEqual(sessions.map(\.sessionResumed), [false, true])
        for session in sessions {
            // The resumed session carries OpenSSL's last verification error, which words
            // the same failure differently.
            guard case .untrusted = session.peerCertificate else {
                return XCTFail("expected untrusted, got \(session.peerCertificate)")
            }
            XCTAssertEqual(session.peerCertificateChainDER.count, 1)
        }
        try await server.stop()
    }
}
