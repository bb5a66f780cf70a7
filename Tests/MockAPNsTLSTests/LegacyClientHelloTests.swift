import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

final class LegacyClientHelloTests: TLSTestCase {
    /// A hand-built SSLv3 ClientHello: no supported_versions extension, legacy version 3.0.
    /// It is told SSLv3 is never accepted, with the SSL advice in place of the version advice.
    func testSSLv3ClientIsRefusedInPlainWords() async throws {
        var configuration = try serverConfiguration()
        configuration.versionRefusalAdvice = "set --allow-old-tls"
        configuration.sslRefusalAdvice = "the application's words"
        let server = try await EchoServer.start(group: group, configuration: configuration)
        var hello: [UInt8] = [0x03, 0x00] + Array(repeating: 0x42, count: 32)  // version, random
        hello += [0x00]  // no session id
        hello += [0x00, 0x04, 0x00, 0x2f, 0x00, 0x0a]  // two cipher suites
        hello += [0x01, 0x00]  // null compression only
        let handshake: [UInt8] = [0x01, 0x00, UInt8(hello.count >> 8), UInt8(hello.count & 0xff)] + hello
        let record: [UInt8] = [0x16, 0x03, 0x00, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xff)] + handshake

        let raw = try await RawClient.connect(group: group, port: server.port)
        try await raw.send(record)
        let clientSide = try await raw.recorder.wait { $0.inactiveCount == 1 }
        // The alert record: fatal (2), handshake_failure (40). OpenSSL answers an SSLv3-only
        // hello this way rather than with protocol_version.
        XCTAssertEqual(Array(clientSide.received.suffix(2)), [0x02, 40])

        let seen = try await server.recorder.wait { !$0.failed.isEmpty }
        let failure = try XCTUnwrap(seen.failed.first)
        // No setting reaches SSLv3, so the application's advice for old versions is not given.
        XCTAssertEqual(
            failure.reason,
            "client offered only [SSLv3]; this listener accepts TLSv1.2 to TLSv1.3: SSLv3 is never accepted, whatever the settings: "
                + "it is insecure (POODLE, CVE-2014-3566), and OpenSSL 3, which serves TLS here, has no SSLv3 at all; "
                + "the application's words; let the client offer TLS 1.2"
        )
        XCTAssertEqual(failure.alertSent, .handshakeFailure)
        XCTAssertEqual(failure.clientHello?.offeredVersions, ["SSLv3"])
        XCTAssertEqual(failure.clientHello?.offeredCipherSuites.count, 2)
        try await server.stop()
    }
}
