import MockAPNsTLS
import NIOCore
import NIOPosix
import XCTest

final class HandlerStateTests: TLSTestCase {
    /// A TCP listener that accepts and never answers, so a client handshake stays pending.
    private func silentListener() async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    func testCloseDuringHandshakeFailsBufferedWritesAndCompletesEveryClosePromise() async throws {
        let listener = try await silentListener()
        let client = try await TestClient.connect(
            group: group, port: listener.localAddress?.port ?? 0, configuration: clientConfiguration()
        )
        let channel = client.channel
        let write = channel.eventLoop.makePromise(of: Void.self)
        let firstClose = channel.eventLoop.makePromise(of: Void.self)
        let secondClose = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(channel.allocator.buffer(string: "never sent"), promise: write)
        channel.close(promise: firstClose)
        channel.close(promise: secondClose)

        try await firstClose.futureResult.get()
        do {
            try await write.futureResult.get()
            XCTFail("a write buffered during the handshake must fail when the channel closes")
        } catch {
            XCTAssertEqual(error as? ChannelError, .ioOnClosedChannel)
        }
        // The second close finds the channel closing or closed; either way it completes.
        _ = try? await secondClose.futureResult.get()
        XCTAssertTrue(client.recorder.snapshot.completed.isEmpty)
        XCTAssertTrue(client.recorder.snapshot.failed.isEmpty, "a local close is not a handshake failure")
        try await listener.close()
    }

    func testWritesAfterCloseFail() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let client = try await TestClient.connect(group: group, port: server.port, configuration: clientConfiguration())
        try await client.recorder.wait { !$0.completed.isEmpty }
        let channel = client.channel
        let closed = channel.eventLoop.makePromise(of: Void.self)
        let late = channel.eventLoop.makePromise(of: Void.self)
        channel.close(promise: closed)
        channel.writeAndFlush(channel.allocator.buffer(string: "too late"), promise: late)
        try await closed.futureResult.get()
        do {
            try await late.futureResult.get()
            XCTFail("a write after close must fail")
        } catch {
            XCTAssertEqual(error as? ChannelError, .ioOnClosedChannel)
        }
        try await server.stop()
    }

    func testHandlerAddedToActiveChannelStartsHandshake() async throws {
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration())
        let context = try OpenSSLContext(clientConfiguration: clientConfiguration())
        let recorder = Recorder()
        let channel = try await ClientBootstrap(group: group)
            .connect(host: "127.0.0.1", port: server.port)
            .get()
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context, serverName: "localhost"))
            try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: false))
        }.get()
        try await channel.writeAndFlush(channel.allocator.buffer(string: "late start"))
        let seen = try await recorder.wait { $0.received.count >= 10 }
        XCTAssertEqual(seen.completed.count, 1)
        try await channel.close()
        try await server.stop()
    }

    func testHandshakeCompletesWithAutoReadOff() async throws {
        let context = try OpenSSLContext(configuration: serverConfiguration())
        let recorder = Recorder()
        let listener = try await ServerBootstrap(group: group)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(ReadOnDemand())
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: true))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let client = try await TestClient.connect(
            group: group, port: listener.localAddress?.port ?? 0, configuration: clientConfiguration()
        )
        // Not awaited: if the handshake stalled, the buffered write would never complete.
        client.channel.writeAndFlush(client.channel.allocator.buffer(string: "on demand"), promise: nil)
        try await client.recorder.wait { $0.received.count >= 9 }
        XCTAssertEqual(recorder.snapshot.completed.count, 1)
        try await client.channel.close()
        try await listener.close()
    }

    func testCloseGivesUpOnAPeerThatStopsReading() async throws {
        let context = try OpenSSLContext(configuration: serverConfiguration())
        let recorder = Recorder()
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        OpenSSLHandler(context: context, closeTimeout: .milliseconds(200))
                    )
                    try channel.pipeline.syncOperations.addHandler(FloodThenClose(bytes: 32 << 20))
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: false))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        // A client that completes the handshake and then never reads again, so the flood and
        // the close_notify behind it stay stuck in the server's socket buffer.
        let clientContext = try OpenSSLContext(clientConfiguration: clientConfiguration())
        let clientRecorder = Recorder()
        let client = try await ClientBootstrap(group: group)
            .channelOption(.autoRead, value: false)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: clientContext, serverName: "localhost"))
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: clientRecorder, echo: false))
                }
            }
            .connect(host: "127.0.0.1", port: listener.localAddress?.port ?? 0)
            .get()
        try await clientRecorder.wait { !$0.completed.isEmpty }

        let started = Date()
        try await recorder.wait(timeout: 5) { $0.inactiveCount == 1 }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        try? await client.close()
        try await listener.close()
    }
}

/// Asks for application data only once the handshake is done, like a handler that applies
/// back-pressure would.
private final class ReadOnDemand: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted {
            context.read()
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Writes `bytes` of plaintext as soon as the handshake completes, then closes.
private final class FloodThenClose: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted {
            var buffer = context.channel.allocator.buffer(capacity: bytes)
            buffer.writeRepeatingByte(0x61, count: bytes)
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
