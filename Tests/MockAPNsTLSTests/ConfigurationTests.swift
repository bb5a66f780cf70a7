import Foundation
import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

final class ConfigurationTests: TLSTestCase {
    /// The system's trust store (OpenSSL's default paths) turns verification on by itself: a
    /// server whose CA it does not hold is refused, and trusted once that CA is given too.
    func testTheSystemTrustStoreVerifiesTheServerAloneOrBesideGivenRoots() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        var systemOnly = try clientConfiguration()
        systemOnly.trustRootsPEM = []
        systemOnly.trustsSystemStore = true
        let refused = try await TestClient.connect(group: group, port: server.port, configuration: systemOnly)
        let refusal = try await refused.recorder.wait { !$0.failed.isEmpty }
        XCTAssertTrue(refusal.failed.first?.reason.hasPrefix("server certificate is not trusted") ?? false, "\(refusal.failed)")

        var both = try clientConfiguration()
        both.trustsSystemStore = true
        let trusted = try await TestClient.connect(group: group, port: server.port, configuration: both)
        let seen = try await trusted.recorder.wait { !$0.completed.isEmpty || !$0.failed.isEmpty }
        XCTAssertEqual(seen.completed.first?.peerCertificate, .trusted, "\(seen.failed)")
        try await trusted.channel.close()
        try await server.stop()
    }

    func testMissingCertificateFileNamesThePathAndOpenSSLReason() throws {
        let fixtures = try fixtures()
        let configuration = TLSConfiguration(
            certificateChain: [.file("/nonexistent/server.pem")],
            privateKey: .file(fixtures.serverKey)
        )
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            guard case TLSError.cannotReadCertificateChain(let source, let reason) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(source, "/nonexistent/server.pem")
            XCTAssertTrue(String(describing: error).hasPrefix("cannot read certificate chain at /nonexistent/server.pem: "))
            XCTAssertFalse(reason.isEmpty)
        }
    }

    func testTextThatIsNotPEMIsRefused() throws {
        let fixtures = try fixtures()
        let configuration = TLSConfiguration(certificateChain: [.string("not a certificate")], privateKey: .file(fixtures.serverKey))
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            guard case TLSError.cannotReadCertificateChain(let source, _) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(source, "in-memory PEM (17 bytes)")
        }
    }

    func testKeyOfAnotherCertificateIsRefused() throws {
        let fixtures = try fixtures()
        let configuration = TLSConfiguration(certificateChain: [.file(fixtures.serverCertificate)], privateKey: .file(fixtures.clientKey))
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            guard case TLSError.privateKeyDoesNotMatchCertificate = error else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    func testMissingTrustRootsAndKeyLogDirectoryAreReported() throws {
        var configuration = try serverConfiguration()
        configuration.trustRootsPEM = [.file("/nonexistent/ca.pem")]
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            guard case TLSError.cannotReadTrustRoots(let source, _) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(source, "/nonexistent/ca.pem")
        }
        configuration = try serverConfiguration()
        configuration.keyLogFile = "/nonexistent/keys.log"
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            guard case TLSError.cannotOpenKeyLogFile(let path, _) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, "/nonexistent/keys.log")
        }
    }

    func testContradictoryConfigurationsAreRefused() throws {
        var configuration = try serverConfiguration()
        configuration.minimumVersion = .tlsv13
        configuration.maximumVersion = .tlsv12
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            XCTAssertEqual(error as? TLSError, .invalidConfiguration("minimum version TLSv1.3 is above maximum version TLSv1.2"))
        }
        configuration = try serverConfiguration(alpn: .require([]))
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration))
    }

    func testPEMBytesWorkLikeFiles() async throws {
        let fixtures = try fixtures()
        let configuration = TLSConfiguration(
            certificateChain: [.bytes(Array(try Data(contentsOf: URL(fileURLWithPath: fixtures.serverCertificate))))],
            privateKey: .bytes(Array(try Data(contentsOf: URL(fileURLWithPath: fixtures.serverKey)))),
            alpn: .require(["h2"])
        )
        let server = try await EchoServer.start(group: group, configuration: configuration)
        var clientConfiguration = try clientConfiguration(alpn: ["h2"])
        clientConfiguration.trustRootsPEM = [.bytes(Array(try Data(contentsOf: URL(fileURLWithPath: fixtures.caCertificate))))]
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration)
        let seen = try await client.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(seen.completed.first?.peerCertificate, .trusted)
        XCTAssertEqual(seen.completed.first?.negotiatedALPN, "h2")
        try await client.channel.close()
        try await server.stop()
    }

    func testContextReportsItsRole() throws {
        XCTAssertEqual(try OpenSSLContext(configuration: serverConfiguration()).role, .server)
        XCTAssertEqual(try OpenSSLContext(clientConfiguration: clientConfiguration()).role, .client)
    }

    func testCipherListIsHonouredForTLS12() async throws {
        var configuration = try serverConfiguration()
        configuration.maximumVersion = .tlsv12
        configuration.cipherList = "ECDHE-ECDSA-AES128-GCM-SHA256"
        let server = try await EchoServer.start(group: group, configuration: configuration)
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        let seen = try await client.recorder.wait { !$0.completed.isEmpty }
        XCTAssertEqual(seen.completed.first?.cipher, "ECDHE-ECDSA-AES128-GCM-SHA256")
        try await client.channel.close()
        try await server.stop()
    }

    func testUnknownCipherListIsRefused() throws {
        var configuration = try serverConfiguration()
        configuration.cipherList = "NO-SUCH-CIPHER"
        XCTAssertThrowsError(try OpenSSLContext(configuration: configuration)) { error in
            guard case TLSError.invalidConfiguration(let message) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(message.hasPrefix("OpenSSL refused the cipher list \"NO-SUCH-CIPHER\""), message)
        }
    }
}
