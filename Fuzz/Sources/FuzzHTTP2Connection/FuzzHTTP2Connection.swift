import CFuzzerDriver
import MockAPNsHTTP2
import MockAPNsWire
import NIOCore
import NIOEmbedded

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzHTTP2Connection_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// The HTTP/2 server handler on one connection, fed the client preface and then the input
/// (after its first byte) as raw bytes, split into reads at each 0x00 0x00 0x00 0xff marker (so one input can
/// deliver several read batches). Every complete request is answered, as the server does.
/// Besides not crashing or leaking, everything the handler writes must be whole HTTP/2
/// frames within the default 16,384-byte frame size.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    // The first byte picks options: frame records, a small header-list limit (so that the
    // over-the-limit paths are reached by short inputs), and how the limit is enforced.
    let options = input.first ?? 0
    var configuration = HTTP2ServerConfiguration(maxConcurrentStreams: 8, recordsFrames: options & 1 == 1)
    if options & 2 == 2 {
        configuration.maxHeaderListSize = 200
    }
    configuration.headerListOverflow = options & 4 == 4 ? .resetStream : .answer431
    let handler = NGHTTP2ServerHandler(configuration: configuration, delegate: AnsweringDelegate())
    let channel = EmbeddedChannel(handler: handler)
    _ = try? channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()

    var reads: [[UInt8]] = [Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)]
    var current: [UInt8] = []
    var index = 1
    while index < input.count {
        if index + 4 <= input.count, input[index] == 0, input[index + 1] == 0, input[index + 2] == 0, input[index + 3] == 0xff {
            reads.append(current)
            current = []
            index += 4
        } else {
            current.append(input[index])
            index += 1
        }
    }
    reads.append(current)

    var output = FrameChecker()
    for read in reads where channel.isActive {
        _ = try? channel.writeInbound(channel.allocator.buffer(bytes: read))
        channel.pipeline.fireChannelReadComplete()
        channel.embeddedEventLoop.run()
        while let written = try? channel.readOutbound(as: ByteBuffer.self) {
            output.append(written)
        }
    }
    output.finish()
    _ = try? channel.finish(acceptAlreadyClosed: true)
    return 0
}

/// Answers every request at once with a small JSON body, as a provider API server would.
private final class AnsweringDelegate: NGHTTP2ServerDelegate {
    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
        var body = ByteBufferAllocator().buffer(capacity: 32)
        body.writeString(#"{"reason":"BadDeviceToken"}"#)
        handler.respond(streamID: request.streamID, status: 400, headers: [HTTPHeader(name: "apns-id", value: "1")], body: body)
    }
}

/// Walks the server's output frame by frame.
private struct FrameChecker {
    private var pending: [UInt8] = []

    mutating func append(_ buffer: ByteBuffer) {
        pending += buffer.readableBytesView
        while pending.count >= 9 {
            let length = Int(pending[0]) << 16 | Int(pending[1]) << 8 | Int(pending[2])
            precondition(length <= 16_384, "the server wrote a frame of \(length) bytes")
            guard pending.count >= 9 + length else { return }
            pending.removeFirst(9 + length)
        }
    }

    func finish() {
        precondition(pending.isEmpty, "the server's output ends inside a frame")
    }
}
