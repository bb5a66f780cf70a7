import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

final class HandshakeTests: TLSTestCase {
    func testEchoRoundTripWithOwnClient() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        // Sent straight after connecting, so it is buffered until the handshake completes.
        try await client.send(Array("hello over TLS".utf8))

        let seen = try await client.recorder.wait { $0.received.count >= 14 }
        XCTAssertEqual(String(decoding: seen.received, as: UTF8.self), "hello over TLS")
        XCTAssertEqual(seen.completed.first?.version, "TLSv1.3")
        XCTAssertEqual(seen.completed.first?.peerCertificate, .trusted)
        XCTAssertEqual(seen.completed.first?.peerCertificateChainDER.count, 1)

        let serverSide = try await server.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(serverSide.completed.first?.peerCertificate, .notPresented)
        XCTAssertEqual(serverSide.completed.first?.negotiatedALPN, nil)
        XCTAssertTrue(serverSide.errors.isEmpty, "\(serverSide.errors)")
        try await client.channel.close()
        try await server.stop()
    }

    func testALPNH2IsNegotiatedAndReportedWithSNI() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(alpn: .require(["h2"])))
        let client = try await TestClient.connect(
            group: group, port: server.port, configuration: clientConfiguration(alpn: ["http/1.1", "h2"])
        )
        let clientSide = try await client.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(clientSide.completed.first?.negotiatedALPN, "h2")

        let serverSide = try await server.recorder.wait { !$0.completed.isEmpty }
        let session = try XCTUnwrap(serverSide.completed.first)
        XCTAssertEqual(session.negotiatedALPN, "h2")
        XCTAssertEqual(session.offeredALPN, ["http/1.1", "h2"])
        XCTAssertEqual(session.serverName, "localhost")
        XCTAssertEqual(session.offeredVersions, ["TLSv1.3", "TLSv1.2"])
        XCTAssertFalse(session.cipher.isEmpty)
        XCTAssertFalse(session.clientHello?.offeredCipherSuites.isEmpty ?? true)
        try await client.channel.close()
        try await server.stop()
    }

    func testClientOfferingOnlyHTTP11GetsNoApplicationProtocol() async throws {
        // The application's own words explain the refusal.
        var configuration = try serverConfiguration(alpn: .require(["h2"]))
        configuration.alpnRefusalExplanation = "APNs requires HTTP/2 (h2)"
        let server = try await EchoServer.start(group: group, configuration: configuration)
        let result = openSSLClient(port: server.port, ["-alpn", "http/1.1", "-servername", "localhost"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("no application protocol"), result.output)

        let seen = try await server.recorder.wait { !$0.failed.isEmpty && !$0.errors.isEmpty }
        let failure = try XCTUnwrap(seen.failed.first)
        XCTAssertEqual(failure.reason, "client offered ALPN [http/1.1]; APNs requires HTTP/2 (h2)")
        XCTAssertEqual(failure.alertSent, .noApplicationProtocol)
        XCTAssertEqual(failure.clientHello?.offeredALPN, ["http/1.1"])
        XCTAssertEqual(failure.clientHello?.serverName, "localhost")
        XCTAssertTrue(seen.errors.first?.contains("APNs requires HTTP/2") ?? false, "\(seen.errors)")
        XCTAssertTrue(seen.completed.isEmpty)
        try await server.stop()
    }

    func testClientOfferingNoALPNIsRefused() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(alpn: .require(["h2"])))
        let result = openSSLClient(port: server.port, [])
        XCTAssertTrue(result.output.contains("no application protocol"), result.output)

        let seen = try await server.recorder.wait { !$0.failed.isEmpty }
        // Without the application's words, the listener's requirement is named.
        XCTAssertEqual(seen.failed.first?.reason, "client offered no ALPN protocol; this listener requires one of [h2]")
        XCTAssertEqual(seen.failed.first?.alertSent, .noApplicationProtocol)
        XCTAssertNotNil(seen.failed.first?.clientHello)
        XCTAssertNil(seen.failed.first?.clientHello?.offeredALPN)

        // Our own client sees the same alert and reports it.
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        let clientSide = try await client.recorder.wait { !$0.failed.isEmpty && $0.inactiveCount == 1 }
        XCTAssertEqual(clientSide.failed.first?.alertReceived, .noApplicationProtocol)
        XCTAssertEqual(clientSide.failed.first?.reason, "server refused the handshake with alert no_application_protocol (120)")
        try await server.stop()
    }

    func testSelectPolicyAcceptsClientWithoutALPNButRefusesOtherProtocols() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(alpn: .select(["h2"])))
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        let clientSide = try await client.recorder.wait { !$0.completed.isEmpty }
        XCTAssertNil(clientSide.completed.first?.negotiatedALPN, "no ALPN offered, none selected, handshake completes")

        let refused = openSSLClient(port: server.port, ["-alpn", "http/1.1"])
        XCTAssertTrue(refused.output.contains("no application protocol"), refused.output)
        let seen = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(seen.failed.first?.alertSent, .noApplicationProtocol)
        try await server.stop()
    }

    func testMaximumVersionTLS12IsHonoured() async throws {
        var configuration = try serverConfiguration()
        configuration.maximumVersion = .tlsv12
        let server = try await EchoServer.start(group: group, configuration: configuration)
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        let clientSide = try await client.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(clientSide.completed.first?.version, "TLSv1.2")

        let serverSide = try await server.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(serverSide.completed.first?.version, "TLSv1.2")
        XCTAssertEqual(serverSide.completed.first?.offeredVersions, ["TLSv1.3", "TLSv1.2"])
        try await client.channel.close()
        try await server.stop()
    }

    func testClientOfferingOnlyOldVersionsIsRefusedInPlainWords() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let result = openSSLClient(port: server.port, ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        XCTAssertNotEqual(result.status, 0, result.output)

        let seen = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(seen.failed.first?.reason, "client offered only [TLSv1]; this listener accepts TLSv1.2 to TLSv1.3")
        XCTAssertEqual(seen.failed.first?.alertSent, .protocolVersion)
        try await server.stop()
    }

    func testTLS10WorksAtSecurityLevelZero() async throws {
        var configuration = try serverConfiguration()
        configuration.minimumVersion = .tlsv1
        configuration.securityLevel = 0
        let server = try await EchoServer.start(group: group, configuration: configuration)
        var clientConfiguration = try clientConfiguration()
        clientConfiguration.minimumVersion = .tlsv1
        clientConfiguration.maximumVersion = .tlsv1
        clientConfiguration.securityLevel = 0
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration)
        try await client.send(Array("legacy".utf8))
        let clientSide = try await client.recorder.wait { $0.received.count >= 6 }
        XCTAssertEqual(clientSide.completed.first?.version, "TLSv1")
        let serverSide = try await server.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(serverSide.completed.first?.offeredVersions, ["TLSv1"])
        try await client.channel.close()
        try await server.stop()
    }

    /// A client that trusts the CA but asked for a name the certificate does not hold sends
    /// bad_certificate: the server names both sides, since a CA file would not help it.
    func testClientRefusesServerCertificateForAnotherName() async throws {
        var configuration = try serverConfiguration()
        configuration.untrustedServerAdvice = "give the client the CA"
        let server = try await EchoServer.start(group: group, configuration: configuration)
        let client = try await TestClient.connect(
            group: group, port: server.port, configuration: clientConfiguration(), serverName: "API.push.apple.com"
        )
        let clientSide = try await client.recorder.wait { !$0.failed.isEmpty }
        XCTAssertTrue(clientSide.failed.first?.reason.hasPrefix("server certificate is not trusted") ?? false, "\(clientSide.failed)")
        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertReceived, .badCertificate)
        XCTAssertEqual(
            serverSide.failed.first?.reason,
            "client aborted the handshake with alert bad_certificate (42): it asked for API.push.apple.com (SNI), a name this "
                + "server's certificate does not hold; the certificate holds DNS names [localhost] and IP addresses [127.0.0.1]: "
                + "let the client connect by one of those, or serve a certificate that holds API.push.apple.com"
        )
        try await server.stop()
    }

    /// A client that connects by an IP address the certificate does not hold sends no SNI:
    /// the server cannot know the address it checked, so it names the certificate's names
    /// and says that a name outside them is the likely cause, before the CA.
    func testClientRefusesServerCertificateForAnotherAddressWithoutSNI() async throws {
        var configuration = try serverConfiguration()
        configuration.untrustedServerAdvice = "give the client the CA"
        let server = try await EchoServer.start(group: group, configuration: configuration)
        let client = try await TestClient.connect(
            group: group, port: server.port, configuration: clientConfiguration(), serverName: "::1"
        )
        _ = try await client.recorder.wait { !$0.failed.isEmpty }
        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertReceived, .badCertificate)
        XCTAssertNil(serverSide.failed.first?.clientHello?.serverName)
        XCTAssertEqual(
            serverSide.failed.first?.reason,
            "client aborted the handshake with alert bad_certificate (42): it refused this server's certificate, and sent no "
                + "server name (SNI; clients send none when they connect by IP address), so which name it checked is not known "
                + "here; the certificate holds DNS names [localhost] and IP addresses [127.0.0.1]: if the client connects by a "
                + "name or address not among those, that is why (connect by one of them, or serve a certificate that holds it); "
                + "otherwise it does not trust the certificate; give the client the CA"
        )
        try await server.stop()
    }

    /// unknown_ca is about the issuer whatever the name: the CA advice, not the names.
    func testClientThatDistrustsTheCAIsToldAboutTheCA() async throws {
        var configuration = try serverConfiguration()
        configuration.untrustedServerAdvice = "give the client the CA"
        let server = try await EchoServer.start(group: group, configuration: configuration)
        var clientConfiguration = try clientConfiguration()
        clientConfiguration.trustRootsPEM = [.file(try fixtures().otherCACertificate)]
        let client = try await TestClient.connect(
            group: group, port: server.port, configuration: clientConfiguration, serverName: "elsewhere.example"
        )
        _ = try await client.recorder.wait { !$0.failed.isEmpty }
        let serverSide = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(serverSide.failed.first?.alertReceived, .unknownCA)
        XCTAssertEqual(
            serverSide.failed.first?.reason,
            "client aborted the handshake with alert unknown_ca (48): it does not trust this server's certificate; give the client the CA"
        )
        try await server.stop()
    }

    func testClientVerifiesIPAddressAndSendsNoSNIForIt() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(
            group: group, port: server.port, configuration: clientConfiguration(), serverName: "127.0.0.1"
        )
        let clientSide = try await client.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(clientSide.completed.first?.peerCertificate, .trusted)
        XCTAssertNil(clientSide.completed.first?.serverName)
        let serverSide = try await server.recorder.wait { !$0.completed.isEmpty }
        XCTAssertNil(serverSide.completed.first?.serverName)
        try await client.channel.close()
        try await server.stop()
    }

    func testHalfClosureDuringHandshakeEndsIt() async throws {
        let context = try OpenSSLContext(configuration: serverConfiguration())
        let recorder = Recorder()
        let listener = try await ServerBootstrap(group: group)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: false))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let raw = try await RawClient.connect(group: group, port: listener.localAddress?.port ?? 0)
        try await raw.send([0x16, 0x03, 0x01])
        try await raw.channel.close(mode: .output)
        let seen = try await recorder.wait { !$0.failed.isEmpty && $0.inactiveCount == 1 }
        XCTAssertEqual(seen.failed.first?.reason, "peer closed the connection during the TLS handshake")
        try await listener.close()
    }
}
