@testable import MockAPNsTLS
import MockAPNsCore
import NIOCore
import NIOPosix
import XCTest

/// Sends damaged copies of a real ClientHello: the ClientHello callback reads these bytes
/// before OpenSSL has judged them, so none may crash the server or wedge a connection.
final class MutatedClientHelloTests: TLSTestCase {
    func testMutatedClientHellosNeverCrashTheServer() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(alpn: .require(["h2"])))
        let hello = try realClientHello()
        var generator = SeededRandom(seed: 0x5eed)
        let variants = 60
        for round in 0..<variants {
            var mutated = hello
            // Leave the 5-byte record header alone so the bytes reach the ClientHello parser.
            for _ in 0..<(1 + round % 4) {
                let index = Int.random(in: 5..<mutated.count, using: &generator)
                mutated[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let raw = try await RawClient.connect(group: group, port: server.port)
            try await raw.send(mutated)
            // A hello that still parses gets a ServerHello and waits; hanging up ends it.
            try await Task.sleep(for: .milliseconds(2))
            try? await raw.channel.close()  // The server may have closed first.
            try await server.recorder.wait { $0.failed.count == round + 1 }
        }
        XCTAssertTrue(server.recorder.snapshot.completed.isEmpty)

        // And the server still serves.
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration(alpn: ["h2"]))
        try await client.send(Array("alive".utf8))
        try await client.recorder.wait { $0.received.count >= 5 }
        try await client.channel.close()
        try await server.stop()
    }

    /// The first flight of our own client: one TLS record holding a ClientHello with SNI,
    /// ALPN and supported_versions.
    private func realClientHello() throws -> [UInt8] {
        let context = try OpenSSLContext(clientConfiguration: TLSClientConfiguration(alpnOffer: ["h2", "http/1.1"]))
        let connection = try OpenSSLConnection(context: context, serverName: "api.push.apple.com", allocator: ByteBufferAllocator())
        guard case .needsMoreData = connection.handshake(),
              let flight = connection.takeCiphertext()
        else {
            throw TLSError.cannotCreateConnection(reason: "no ClientHello produced")
        }
        return Array(flight.readableBytesView)
    }
}
