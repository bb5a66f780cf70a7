import Logging
import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsTLS
import NIOCore

/// What every HTTP/2 connection of one listener shares.
struct HTTP2ConnectionServices: Sendable {
    let decider: PushDecider
    let environment: APNsEnvironment
    let logger: Logger
}

/// Joins one HTTP/2 connection to the decision core: each complete request becomes an
/// `HTTP2PushRequest`, the core decides, and the verdict goes back as Apple's response.
///
/// It sits last in the pipeline (after TLS and nghttp2) to hear the TLS handshake facts, and
/// is the nghttp2 handler's delegate to hear requests. It moves values only; every rule lives
/// in `MockAPNsCore`.
final class HTTP2ConnectionBridge: ChannelInboundHandler, NGHTTP2ServerDelegate {
    typealias InboundIn = ByteBuffer

    private let services: HTTP2ConnectionServices
    private var session: TLSSessionInfo?
    private var logger: Logger

    init(services: HTTP2ConnectionServices) {
        self.services = services
        self.logger = services.logger
    }

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.remoteAddress {
            logger[metadataKey: "peer"] = "\(remote)"
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            session = completed.session
        case let failed as TLSHandshakeFailed:
            logger.notice("TLS handshake refused: \(failed.reason)")
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(request.headers.count)
        for field in request.headers {
            headers.append(HTTPHeader(name: field.name, value: field.value))
        }
        let push = HTTP2PushRequest(headers: headers, body: Array(request.body.readableBytesView))
        let decisionContext = DecisionContext(environment: services.environment, authentication: .notRequired)
        let verdict = services.decider.decide(http2: push, context: decisionContext)
        let response = HTTP2ResponseRenderer.render(verdict)
        handler.respond(
            streamID: request.streamID,
            status: response.status,
            headers: response.headers.map { ($0.name, $0.value) },
            body: response.body.map { ByteBuffer(bytes: $0) }
        )
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError) {
        logger.notice("HTTP/2 connection error: \(connectionError)")
    }
}
