import MockAPNsCore
import NIOCore
import NIOHTTP1
import NIOPosix
import MockAPNsDelivery

/// POSTs each delivered notification as JSON (`DeliveredNotification.json`) to an `http://`
/// URL, one request per connection, on the server's event loops: nothing waits on a thread,
/// and a receiver that does not answer in time has its connection closed.
package struct WebhookForwarder: DeliveryForwarder {
    package let url: String
    package let address: WebhookAddress
    package let group: any EventLoopGroup

    package var name: String { "webhook" }

    package func job(for delivered: DeliveredNotification) -> ForwardingJob {
        .forward(ForwardingJob.Work(delivered: delivered, description: "POST \(url)", body: Array(delivered.json.utf8)))
    }

    package func run(_ work: ForwardingJob.Work, timeout: Duration) async -> ForwardingOutcome {
        let eventLoop = group.next()
        let answered = eventLoop.makePromise(of: HTTPResponseStatus.self)
        let limit = TimeAmount.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(limit)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(WebhookResponseHandler(answered: answered))
                }
            }
        let timer = eventLoop.scheduleTask(in: limit) {
            answered.fail(WebhookTimeout())
        }
        let address = self.address
        let body = work.body
        bootstrap.connect(host: address.host, port: address.port).whenComplete { result in
            switch result {
            case .failure(let error):
                answered.fail(error)
            case .success(let channel):
                answered.futureResult.whenComplete { _ in channel.close(promise: nil) }
                var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: address.path)
                head.headers.add(name: "Host", value: address.hostHeader)
                head.headers.add(name: "Content-Type", value: "application/json")
                head.headers.add(name: "Content-Length", value: String(body.count))
                head.headers.add(name: "User-Agent", value: "mockapns")
                head.headers.add(name: "Connection", value: "close")
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.write(HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(bytes: body))), promise: nil)
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { answered.fail($0) }
            }
        }
        defer { timer.cancel() }
        do {
            let status = try await withTaskCancellationHandler {
                try await answered.futureResult.get()
            } onCancel: {
                answered.fail(CancellationError())
            }
            guard (200..<300).contains(Int(status.code)) else {
                return .failed("the receiver answered \(status.code) \(status.reasonPhrase)")
            }
            return .done
        } catch is WebhookTimeout {
            return .timedOut
        } catch let refused as NIOConnectionError {
            let causes = refused.connectionErrors.map { "\($0.error)" }
            return .failed("could not connect to \(address.host):\(address.port)" + (causes.isEmpty ? "" : ": " + causes.joined(separator: "; ")))
        } catch {
            return .failed("\(error)")
        }
    }
}

/// The receiver took too long.
private struct WebhookTimeout: Error {}

/// The receiver closed the connection before a whole response.
private struct WebhookNoAnswer: Error, CustomStringConvertible {
    package var description: String { "the receiver closed the connection without a complete answer" }
}

/// Reads the response's status; the answer counts once the whole response has arrived.
private final class WebhookResponseHandler: ChannelInboundHandler {
    package typealias InboundIn = HTTPClientResponsePart

    private let answered: EventLoopPromise<HTTPResponseStatus>
    private var status: HTTPResponseStatus?

    package init(answered: EventLoopPromise<HTTPResponseStatus>) {
        self.answered = answered
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
        case .body:
            break
        case .end:
            if let status {
                answered.succeed(status)
            } else {
                answered.fail(WebhookNoAnswer())
            }
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        answered.fail(WebhookNoAnswer())
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        answered.fail(error)
        context.close(promise: nil)
    }
}
