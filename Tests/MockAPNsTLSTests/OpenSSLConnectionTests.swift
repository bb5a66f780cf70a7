@testable import MockAPNsTLS
import NIOCore
import XCTest

/// What one `SSL` object keeps, and for how long: everything goes with the connection, since
/// the servers make one per connection, and a gateway refusing a million notifications makes
/// a million of them.
final class OpenSSLConnectionTests: TLSTestCase {
    func testTheBIOIsFreedWithAConnectionThatNeverStarted() throws {
        let context = try OpenSSLContext(configuration: serverConfiguration())
        let bio = try withConnection(context: context) { $0.bio }
        XCTAssertTrue(bio.destroyed, "the connection's BIO outlived its SSL")
    }

    func testTheBIOsAreFreedWithBothEndsOfACompletedHandshake() throws {
        let server = try OpenSSLContext(configuration: serverConfiguration())
        let client = try OpenSSLContext(clientConfiguration: clientConfiguration())
        let bios = try withConnection(context: server) { serverEnd in
            try withConnection(context: client, serverName: "localhost") { clientEnd in
                try handshake(client: clientEnd, server: serverEnd)
                return (serverEnd.bio, clientEnd.bio)
            }
        }
        XCTAssertTrue(bios.0.destroyed, "the server end's BIO outlived its SSL")
        XCTAssertTrue(bios.1.destroyed, "the client end's BIO outlived its SSL")
    }

    /// Runs `body` with a connection that is released when it returns.
    private func withConnection<Result>(
        context: OpenSSLContext, serverName: String? = nil, _ body: (OpenSSLConnection) throws -> Result
    ) throws -> Result {
        let connection = try OpenSSLConnection(context: context, serverName: serverName, allocator: ByteBufferAllocator())
        return try body(connection)
    }

    /// Passes each end's flights to the other until both have completed the handshake.
    private func handshake(client: OpenSSLConnection, server: OpenSSLConnection) throws {
        var clientDone = false, serverDone = false
        for _ in 0..<10 where !(clientDone && serverDone) {
            clientDone = try Self.complete(client.handshake())
            if let flight = client.takeCiphertext() { server.receive(flight) }
            serverDone = try Self.complete(server.handshake())
            if let flight = server.takeCiphertext() { client.receive(flight) }
        }
        XCTAssertTrue(clientDone && serverDone, "the handshake did not complete")
    }

    private static func complete(_ outcome: OpenSSLConnection.HandshakeOutcome) throws -> Bool {
        switch outcome {
        case .complete: return true
        case .needsMoreData: return false
        case .failed(let openSSL): throw TLSError.cannotCreateConnection(reason: openSSL)
        }
    }
}
