import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A local HTTP receiver for the webhook forwarder, on 127.0.0.1 and a free port: it keeps the
/// body of every POST to `/push` and answers as told (200, a failure status, or not at all).
final class WebhookReceiver: Sendable {
    enum Answer: Sendable {
        case ok
        case status(Int)
        /// Holds every request without answering (until the receiver stops).
        case never
    }

    /// The bodies received, oldest first.
    final class Bodies: Sendable {
        private let bodies = Mutex<[String]>([])
        var all: [String] { bodies.withLock { $0 } }
        func append(_ body: String) { bodies.withLock { $0.append(body) } }
    }

    let port: Int
    let received: Bodies
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, received: Bodies, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.received = received
        self.group = group
        self.running = running
    }

    var url: String { "http://127.0.0.1:\(port)/push" }

    static func start(answering answer: Answer) async throws -> WebhookReceiver {
        let received = Bodies()
        let router = Router()
        router.post("/push") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            received.append(String(buffer: body))
            switch answer {
            case .ok:
                return Response(status: .ok)
            case .status(let code):
                return Response(status: HTTPResponse.Status(code: code))
            case .never:
                try await Task.sleep(for: .seconds(3600))
                return Response(status: .ok)
            }
        }
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        // Quiet: being cut off mid-request is how a test ends it.
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portSink.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let group = ServiceGroup(services: [application], logger: logger)
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw ReceiverFailed() }
        return WebhookReceiver(port: port, received: received, group: group, running: running)
    }

    /// Stops at once, cutting off a request held without an answer.
    func stop() async {
        running.cancel()
        _ = try? await running.value
    }

    struct ReceiverFailed: Error {}
}
