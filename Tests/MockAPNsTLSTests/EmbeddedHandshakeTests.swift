import MockAPNsTLS
import NIOCore
import NIOEmbedded
import XCTest

/// `OpenSSLHandler`'s state machine on two `EmbeddedChannel`s, a client and a server, with
/// the test carrying every byte between them: the handshake's events, application data once
/// it is done, and a refusal's alert, with no socket and no thread in between.
final class EmbeddedHandshakeTests: TLSTestCase {
    /// Records the TLS events and the plaintext the handler passes up.
    private final class Events: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var completed: [TLSHandshakeCompleted] = []
        var failed: [TLSHandshakeFailed] = []
        var received: [UInt8] = []

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? TLSHandshakeCompleted { completed.append(event) }
            if let event = event as? TLSHandshakeFailed { failed.append(event) }
            context.fireUserInboundEventTriggered(event)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += unwrapInboundIn(data).readableBytesView
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }

    private struct Pair {
        let client: EmbeddedChannel
        let server: EmbeddedChannel
        let clientEvents = Events()
        let serverEvents = Events()
    }

    private func pair(server serverConfiguration: TLSConfiguration, client clientConfiguration: TLSClientConfiguration) throws -> Pair {
        let server = EmbeddedChannel()
        let client = EmbeddedChannel()
        let pair = Pair(client: client, server: server)
        try server.pipeline.syncOperations.addHandlers(
            OpenSSLHandler(context: OpenSSLContext(configuration: serverConfiguration)), pair.serverEvents)
        try client.pipeline.syncOperations.addHandlers(
            OpenSSLHandler(context: OpenSSLContext(clientConfiguration: clientConfiguration), serverName: "localhost"), pair.clientEvents)
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        try server.connect(to: address).wait()
        try client.connect(to: address).wait()
        return pair
    }

    /// Carries bytes both ways until neither side has anything more to say.
    private func exchange(_ pair: Pair) throws {
        var moved = true
        var rounds = 0
        while moved, rounds < 50 {
            moved = false
            rounds += 1
            while let bytes = try pair.client.readOutbound(as: ByteBuffer.self) {
                moved = true
                if pair.server.isActive { try pair.server.writeInbound(bytes) }
            }
            while let bytes = try pair.server.readOutbound(as: ByteBuffer.self) {
                moved = true
                if pair.client.isActive { try pair.client.writeInbound(bytes) }
            }
        }
    }

    func testAHandshakeCompletesBothWaysAndThenCarriesData() throws {
        let pair = try self.pair(server: serverConfiguration(alpn: .require(["h2"])), client: clientConfiguration(alpn: ["h2"]))
        try exchange(pair)
        XCTAssertEqual(pair.serverEvents.completed.count, 1)
        XCTAssertEqual(pair.clientEvents.completed.count, 1)
        XCTAssertEqual(pair.serverEvents.completed.first?.session.negotiatedALPN, "h2")
        XCTAssertTrue(pair.serverEvents.failed.isEmpty)

        try pair.client.writeAndFlush(ByteBuffer(string: "ping")).wait()
        try exchange(pair)
        XCTAssertEqual(String(decoding: pair.serverEvents.received, as: UTF8.self), "ping", "decrypted on the other side")
        _ = try? pair.client.finish()
        _ = try? pair.server.finish()
    }

    func testARefusedALPNFailsTheHandshakeWithAnAlertAndClosesTheServerSide() throws {
        var configuration = try serverConfiguration(alpn: .require(["h2"]))
        configuration.alpnRefusalExplanation = "h2 only here"
        let pair = try self.pair(server: configuration, client: clientConfiguration(alpn: ["http/1.1"]))
        try exchange(pair)
        let failure = try XCTUnwrap(pair.serverEvents.failed.first)
        XCTAssertEqual(failure.alertSent, .noApplicationProtocol)
        XCTAssertEqual(failure.reason, "client offered ALPN [http/1.1]; h2 only here")
        XCTAssertTrue(pair.serverEvents.completed.isEmpty)
        XCTAssertEqual(pair.clientEvents.failed.first?.alertReceived, .noApplicationProtocol, "the client read the alert")
        pair.server.embeddedEventLoop.run()
        XCTAssertFalse(pair.server.isActive, "the server closes a refused connection")
        _ = try? pair.client.finish()
    }
}
