// A load generator for the legacy binary gateway (Benchmarks/legacy.sh).
//
// Opens N TLS connections with a client certificate (our OpenSSL handler in client mode),
// writes pre-encoded command-2 notifications as fast as the socket takes them, and ends each
// connection with one notification whose token has the wrong length. The gateway handles
// frames in order, so its error packet (status 5) naming that last identifier proves every
// earlier notification was read and judged; the clock stops when it arrives.
//
//   LegacyLoadGenerator --port PORT[,PORT...] [--connections 1] [--notifications 1000000]
//       [--cert certs-dev/client-sandbox.pem] [--key certs-dev/client-sandbox-key.pem]
//       [--ca certs-dev/ca.pem] [--payload-bytes 100] [--host 127.0.0.1]
//       [--no-marker]   (for a plain TLS sink: stop when the last byte is written)
//
// Prints one line: connections=N notifications=N bytes=N seconds=S notifications_per_second=R

import Dispatch
import MockAPNsCore
import MockAPNsTLS
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MockAPNsLegacy

struct Options {
    var host = "127.0.0.1"
    /// Connection i goes to ports[i % ports.count].
    var ports = [2195]
    var connections = 1
    var notifications = 1_000_000
    var certificate = "certs-dev/client-sandbox.pem"
    var key = "certs-dev/client-sandbox-key.pem"
    var ca = "certs-dev/ca.pem"
    var payloadBytes = 100
    var marker = true

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        func value(_ name: String) -> String {
            guard let next = iterator.next() else { fail("\(name) needs a value") }
            return next
        }
        func number(_ name: String) -> Int {
            guard let number = Int(value(name)), number > 0 else { fail("\(name) takes a positive number") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--host": options.host = value(argument)
            case "--port":
                let ports = value(argument).split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 && $0 < 65536 }
                guard !ports.isEmpty else { fail("--port takes a port or a comma-separated list of ports") }
                options.ports = ports
            case "--connections": options.connections = number(argument)
            case "--notifications": options.notifications = number(argument)
            case "--cert": options.certificate = value(argument)
            case "--key": options.key = value(argument)
            case "--ca": options.ca = value(argument)
            case "--payload-bytes": options.payloadBytes = number(argument)
            case "--no-marker": options.marker = false
            case "-h", "--help":
                print("usage: LegacyLoadGenerator --port PORT[,PORT...] [--connections N] [--notifications N] [--cert PEM] [--key PEM] [--ca PEM] [--payload-bytes N] [--host ADDR] [--no-marker]")
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandleStandardError.write("LegacyLoadGenerator: \(message)\n")
    exit(1)
}

enum FileHandleStandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// The bytes one connection writes: `chunk` (many identical frames) `chunks` times, then the
/// remainder frames, then the marker.
struct Workload {
    let chunk: ByteBuffer
    let chunks: Int
    let tail: ByteBuffer
    let marker: ByteBuffer?
    let markerIdentifier: UInt32
    let notifications: Int
    var bytes: Int { chunk.readableBytes * chunks + tail.readableBytes + (marker?.readableBytes ?? 0) }

    init(notifications: Int, payloadBytes: Int, marker: Bool) {
        let alert = String(repeating: "x", count: max(0, payloadBytes - 28))
        let payload = Array(#"{"aps":{"alert":"\#(alert)"}}"#.utf8)
        let frame = LegacyNotification(
            command: .frame, identifier: 1, expiry: 0,
            token: Array(repeating: 0xA1, count: 32), payload: payload, priority: .immediate
        ).encoded()
        // About 16 KiB a chunk: one TLS record per chunk.
        let perChunk = max(1, 16_000 / frame.count)
        let allocator = ByteBufferAllocator()
        var chunk = allocator.buffer(capacity: frame.count * perChunk)
        for _ in 0..<perChunk { chunk.writeBytes(frame) }
        var tail = allocator.buffer(capacity: frame.count * (notifications % perChunk))
        for _ in 0..<(notifications % perChunk) { tail.writeBytes(frame) }
        self.chunk = chunk
        self.chunks = notifications / perChunk
        self.tail = tail
        self.notifications = notifications
        self.markerIdentifier = 0xFEED_0001
        if marker {
            // A 16-byte token: the gateway (32-byte tokens) answers status 5 for this identifier.
            let bad = LegacyNotification(
                command: .frame, identifier: markerIdentifier, expiry: 0,
                token: Array(repeating: 0xB2, count: 16), payload: payload, priority: .immediate
            ).encoded()
            self.marker = allocator.buffer(bytes: bad)
        } else {
            self.marker = nil
        }
    }
}

struct Outcome: Sendable {
    var started: UInt64
    var finished: UInt64
}

/// Pushes one workload through one TLS connection, then waits for the marker's error packet.
final class PushHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let workload: Workload
    private let done: EventLoopPromise<Outcome>
    private var chunksLeft: Int
    private var tailSent = false
    private var started: UInt64 = 0
    private var writing = false
    private var received: [UInt8] = []
    private var finished = false

    init(workload: Workload, done: EventLoopPromise<Outcome>) {
        self.workload = workload
        self.done = done
        self.chunksLeft = workload.chunks
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted {
            started = DispatchTime.now().uptimeNanoseconds
            writing = true
            pump(context: context)
        } else if let failure = event as? TLSHandshakeFailed {
            finish(.failure(Failure("TLS handshake failed: \(failure.reason)")))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump(context: context) }
    }

    private func pump(context: ChannelHandlerContext) {
        guard writing else { return }
        while context.channel.isWritable && chunksLeft > 0 {
            // A few chunks per flush: one encryption pass and one socket write each.
            for _ in 0..<min(4, chunksLeft) {
                context.write(wrapOutboundOut(workload.chunk), promise: nil)
                chunksLeft -= 1
            }
            context.flush()
        }
        guard chunksLeft == 0 else { return }
        writing = false
        if workload.tail.readableBytes > 0 { context.write(wrapOutboundOut(workload.tail), promise: nil) }
        if let marker = workload.marker {
            context.writeAndFlush(wrapOutboundOut(marker), promise: nil)
        } else {
            // No marker (a plain TLS sink): done when the last ciphertext is on the socket.
            let promise = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: promise)
            // Completed on this handler's event loop, where `self` and `context` live.
            promise.futureResult.assumeIsolated().whenComplete { _ in
                self.finish(.success(Outcome(started: self.started, finished: DispatchTime.now().uptimeNanoseconds)))
                context.close(promise: nil)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard received.count >= 6 else { return }
        let status = received[1]
        let identifier = received[2...5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if received[0] == 8 && status == 5 && identifier == workload.markerIdentifier {
            finish(.success(Outcome(started: started, finished: DispatchTime.now().uptimeNanoseconds)))
        } else {
            finish(.failure(Failure("unexpected error packet: command \(received[0]) status \(status) identifier \(identifier)")))
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(Failure("connection closed before the marker's error packet")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    private func finish(_ result: Result<Outcome, Error>) {
        guard !finished else { return }
        finished = true
        done.completeWith(result)
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let options = Options.parse(CommandLine.arguments)
let tlsContext: OpenSSLContext
do {
    tlsContext = try OpenSSLContext(clientConfiguration: TLSClientConfiguration(
        certificateChain: [.file(options.certificate)],
        privateKey: .file(options.key),
        trustRootsPEM: [.file(options.ca)]
    ))
} catch {
    fail("TLS configuration: \(error)")
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let perConnection = (0..<options.connections).map { index in
    options.notifications / options.connections + (index < options.notifications % options.connections ? 1 : 0)
}
let workloads = perConnection.map { Workload(notifications: $0, payloadBytes: options.payloadBytes, marker: options.marker) }

var futures: [EventLoopFuture<Outcome>] = []
for (index, workload) in workloads.enumerated() {
    let port = options.ports[index % options.ports.count]
    let loop = group.next()
    let done = loop.makePromise(of: Outcome.self)
    let bootstrap = ClientBootstrap(group: loop)
        .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: tlsContext, serverName: options.host))
                try channel.pipeline.syncOperations.addHandler(PushHandler(workload: workload, done: done))
            }
        }
    bootstrap.connect(host: options.host, port: port).whenFailure { done.fail($0) }
    futures.append(done.futureResult)
}

do {
    let outcomes = try EventLoopFuture.whenAllSucceed(futures, on: group.next()).wait()
    let start = outcomes.map(\.started).min() ?? 0
    let end = outcomes.map(\.finished).max() ?? 0
    let seconds = Double(end - start) / 1e9
    let bytes = workloads.map(\.bytes).reduce(0, +)
    let rate = Double(options.notifications) / seconds
    print("connections=\(options.connections) notifications=\(options.notifications) bytes=\(bytes) seconds=\(String(format: "%.3f", seconds)) notifications_per_second=\(Int(rate))")
} catch {
    fail("\(error)")
}
try? group.syncShutdownGracefully()
