import Foundation
import MockAPNsTLS
import NIOCore
import NIOPosix
import Synchronization
import XCTest

/// Everything observed on one side of a TLS connection (or on all connections of a server).
struct Observations: Sendable {
    var completed: [TLSSessionInfo] = []
    var failed: [TLSHandshakeFailed] = []
    var errors: [String] = []
    var received: [UInt8] = []
    var inactiveCount = 0
    var closeNotifyCount = 0
}

/// A thread-safe sink the probe handlers report into, with a polling wait for tests.
final class Recorder: Sendable {
    private let state = Mutex(Observations())

    func update(_ change: (inout Observations) -> Void) {
        state.withLock { change(&$0) }
    }

    var snapshot: Observations {
        state.withLock { $0 }
    }

    /// Waits until `condition` holds, failing the test after `timeout` seconds.
    @discardableResult
    func wait(
        timeout: Double = 10,
        file: StaticString = #filePath,
        line: UInt = #line,
        until condition: (Observations) -> Bool
    ) async throws -> Observations {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = snapshot
            if condition(current) { return current }
            try await Task.sleep(for: .milliseconds(10))
        }
        let current = snapshot
        XCTFail("condition not met within \(timeout)s; observed \(current)", file: file, line: line)
        return current
    }
}

/// Sits above `OpenSSLHandler` and reports what reaches it; optionally echoes plaintext.
final class Probe: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let recorder: Recorder
    private let echo: Bool

    init(recorder: Recorder, echo: Bool) {
        self.recorder = recorder
        self.echo = echo
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        recorder.update { $0.received += buffer.readableBytesView }
        if echo && buffer.readableBytesView.elementsEqual("close".utf8) {
            context.close(promise: nil)
        } else if echo {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let completed = event as? TLSHandshakeCompleted {
            recorder.update { $0.completed.append(completed.session) }
        } else if let failed = event as? TLSHandshakeFailed {
            recorder.update { $0.failed.append(failed) }
        } else if event is TLSCloseNotifyReceived {
            recorder.update { $0.closeNotifyCount += 1 }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        recorder.update { $0.errors.append(String(describing: error)) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        recorder.update { $0.inactiveCount += 1 }
        context.fireChannelInactive()
    }
}

/// A TLS echo server on 127.0.0.1 with an ephemeral port.
struct EchoServer {
    let channel: any Channel
    let recorder: Recorder
    var port: Int { channel.localAddress?.port ?? 0 }

    static func start(group: any EventLoopGroup, configuration: TLSConfiguration, echo: Bool = true) async throws -> EchoServer {
        let context = try OpenSSLContext(configuration: configuration)
        let recorder = Recorder()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: echo))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return EchoServer(channel: channel, recorder: recorder)
    }

    func stop() async throws {
        try await channel.close()
    }
}

/// A client connection using our own client mode.
struct TestClient {
    let channel: any Channel
    let recorder: Recorder

    static func connect(
        group: any EventLoopGroup,
        port: Int,
        configuration: TLSClientConfiguration,
        serverName: String? = "localhost"
    ) async throws -> TestClient {
        let context = try OpenSSLContext(clientConfiguration: configuration)
        let recorder = Recorder()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context, serverName: serverName))
                    try channel.pipeline.syncOperations.addHandler(Probe(recorder: recorder, echo: false))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return TestClient(channel: channel, recorder: recorder)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }
}

/// Runs `openssl s_client` against a local port and returns what it printed.
func openSSLClient(port: Int, _ extraArguments: [String], input: String = "") -> ExternalCommand.Result {
    ExternalCommand.run(
        "/usr/bin/env",
        ["openssl", "s_client", "-connect", "127.0.0.1:\(port)"] + extraArguments,
        input: input,
        timeout: 20
    )
}
