import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

/// Shared set-up: an event loop group and the generated certificates.
class TLSTestCase: XCTestCase {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    override func tearDown() async throws {
        try await group.shutdownGracefully()
        try await super.tearDown()
    }

    func fixtures() throws -> CertificateFixtures {
        try CertificateFixtures.shared.get()
    }

    /// A server configuration with the generated server certificate.
    func serverConfiguration(
        alpn: ALPNPolicy = .none,
        clientCertificate: ClientCertificateMode = .none
    ) throws -> TLSConfiguration {
        let fixtures = try fixtures()
        return TLSConfiguration(
            certificateChain: [.file(fixtures.serverCertificate)],
            privateKey: .file(fixtures.serverKey),
            alpn: alpn,
            clientCertificate: clientCertificate,
            trustRootsPEM: [.file(fixtures.caCertificate)]
        )
    }

    /// A client configuration that verifies the server against the generated CA.
    func clientConfiguration(alpn: [String] = [], certificate: String? = nil, key: String? = nil) throws -> TLSClientConfiguration {
        let fixtures = try fixtures()
        return TLSClientConfiguration(
            alpnOffer: alpn,
            certificateChain: certificate.map { [.file($0)] } ?? [],
            privateKey: key.map { .file($0) },
            trustRootsPEM: [.file(fixtures.caCertificate)]
        )
    }
}
