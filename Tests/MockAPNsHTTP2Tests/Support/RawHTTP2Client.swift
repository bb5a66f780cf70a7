import NIOCore
import NIOPosix
import MockAPNsTestSupport
import Synchronization

/// A TCP client that sends bytes and collects everything the server answers until it
/// closes the connection (or `timeout` passes).
enum RawHTTP2Client {
    struct Exchange {
        var frames: [RawHTTP2Frame]
        /// Whether the server closed the connection (as opposed to the client giving up).
        var closedByServer: Bool
    }

    /// Sends `send`, then each of `later` after its delay (counted from the connection),
    /// and collects the answer.
    static func exchange(
        port: Int, send: [UInt8], later: [(delay: TimeAmount, bytes: [UInt8])] = [],
        timeout: TimeAmount = .seconds(5), group: any EventLoopGroup
    ) throws -> Exchange {
        let collector = Collector()
        let channel = try ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CollectingHandler(collector: collector))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .wait()
        try channel.writeAndFlush(ByteBuffer(bytes: send)).wait()
        for (delay, bytes) in later {
            channel.eventLoop.scheduleTask(in: delay) {
                channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
            }
        }
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            collector.markTimedOut()
            channel.close(promise: nil)
        }
        try channel.closeFuture.wait()
        timer.cancel()
        let (bytes, timedOut) = collector.result
        return Exchange(frames: RawHTTP2Frame.parse(bytes), closedByServer: !timedOut)
    }

    private final class Collector: Sendable {
        private let state = Mutex<(bytes: [UInt8], timedOut: Bool)>(([], false))
        func append(_ buffer: ByteBuffer) { state.withLock { $0.bytes += buffer.readableBytesView } }
        func markTimedOut() { state.withLock { $0.timedOut = true } }
        var result: ([UInt8], Bool) { state.withLock { ($0.bytes, $0.timedOut) } }
    }

    private final class CollectingHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let collector: Collector
        init(collector: Collector) { self.collector = collector }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            collector.append(unwrapInboundIn(data))
        }
    }
}
