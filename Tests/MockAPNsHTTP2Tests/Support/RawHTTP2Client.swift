import NIOCore
import NIOPosix
import Synchronization

/// One frame as a raw client reads it off the wire.
struct WireFrame: Equatable {
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var payload: [UInt8]

    /// GOAWAY fields: error code and debug data.
    var goAwayErrorCode: UInt32? {
        guard type == 0x7, payload.count >= 8 else { return nil }
        return payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
    }

    var goAwayDebugText: String? {
        guard type == 0x7, payload.count >= 8 else { return nil }
        return String(decoding: payload[8...], as: UTF8.self)
    }

    /// RST_STREAM error code.
    var resetErrorCode: UInt32? {
        guard type == 0x3, payload.count == 4 else { return nil }
        return payload.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Builds client bytes by hand, for the tests that must send what no real client sends.
enum ClientBytes {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func frame(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [
            UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff),
            type, flags,
            UInt8(streamID >> 24 & 0x7f), UInt8(streamID >> 16 & 0xff),
            UInt8(streamID >> 8 & 0xff), UInt8(streamID & 0xff),
        ] + payload
    }

    static let emptySettings = frame(type: 0x4, streamID: 0)
    static let settingsAck = frame(type: 0x4, flags: 0x1, streamID: 0)

    /// HPACK for `:method POST`, `:scheme http`, `:path /`, `:authority localhost`,
    /// using the static table and one literal.
    static let requestHeaderBlock: [UInt8] = [0x83, 0x86, 0x84, 0x01, 0x09] + Array("localhost".utf8)

    /// HPACK "literal header field without indexing, new name" (RFC 7541, 6.2.2).
    static func literal(_ name: String, _ value: String) -> [UInt8] {
        [0x00] + length(name.utf8.count) + Array(name.utf8) + length(value.utf8.count) + Array(value.utf8)
    }

    /// An HPACK string length: a 7-bit prefix integer, no Huffman coding (RFC 7541, 5.1).
    private static func length(_ value: Int) -> [UInt8] {
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        return bytes + [UInt8(rest)]
    }

    /// A request HEADERS frame; `endStream` makes it a request without body.
    static func headers(streamID: UInt32, endStream: Bool) -> [UInt8] {
        frame(type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), streamID: streamID, payload: requestHeaderBlock)
    }

    static func data(streamID: UInt32, _ payload: [UInt8], endStream: Bool) -> [UInt8] {
        frame(type: 0x0, flags: endStream ? 0x1 : 0, streamID: streamID, payload: payload)
    }

    /// Preface, empty SETTINGS and (usually) the ACK of the server's SETTINGS, which makes
    /// nghttp2 apply them at once.
    static func opening(acknowledgingSettings: Bool = true) -> [UInt8] {
        preface + emptySettings + (acknowledgingSettings ? settingsAck : [])
    }
}

/// A TCP client that sends bytes and collects everything the server answers until it
/// closes the connection (or `timeout` passes).
enum RawHTTP2Client {
    struct Exchange {
        var frames: [WireFrame]
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
        return Exchange(frames: parse(bytes), closedByServer: !timedOut)
    }

    static func parse(_ bytes: [UInt8]) -> [WireFrame] {
        var frames: [WireFrame] = []
        var offset = 0
        while bytes.count - offset >= 9 {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard bytes.count - offset - 9 >= length else { break }
            let streamID = bytes[offset + 5..<offset + 9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
            frames.append(WireFrame(
                type: bytes[offset + 3], flags: bytes[offset + 4], streamID: streamID,
                payload: Array(bytes[offset + 9..<offset + 9 + length])
            ))
            offset += 9 + length
        }
        return frames
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
