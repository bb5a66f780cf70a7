import Logging
import MockAPNsConnections
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsTLS
import NIOCore

/// The web push listener's last handler until TLS is done: it speaks whatever ALPN chose.
/// `h2` gets the HTTP/2 bridge every HTTP/2 listener uses (its web push role); `http/1.1`, or a
/// client that offered no ALPN (the HTTP/1.1 libraries of most languages), gets NIO's HTTP/1.1
/// codec between the two handlers of an `HTTP1RequestGuard`, NIO's pipelining helper, the
/// shared `HTTP1ProtocolErrorHandler` and `WebPushHTTP1Handler`. Then it steps out of the pipeline.
final class WebPushProtocolSelector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let services: HTTP2ConnectionServices
    private let scenarioConnection: ScenarioConnection
    private let recorder: ConnectionJournal

    init(services: HTTP2ConnectionServices, scenarioConnection: ScenarioConnection, recorder: ConnectionJournal) {
        self.services = services
        self.scenarioConnection = scenarioConnection
        self.recorder = recorder
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let completed = event as? TLSHandshakeCompleted else {
            return context.fireUserInboundEventTriggered(event)
        }
        do {
            try choose(completed.session.negotiatedALPN, context: context)
        } catch {
            services.logger.error("could not set up the web push connection: \(error)")
            context.close(promise: nil)
            return
        }
        // The chosen handlers see the handshake too (the HTTP/2 bridge starts on it); then
        // this handler leaves.
        context.fireUserInboundEventTriggered(event)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func choose(_ alpn: String?, context: ChannelHandlerContext) throws {
        let operations = context.pipeline.syncOperations
        if alpn == "h2" {
            // The bridge starts HTTP/2 when the handshake event reaches it, right after this.
            try operations.addHandler(
                HTTP2ConnectionBridge(services: services, scenarioConnection: scenarioConnection, recorder: recorder),
                position: .after(self)
            )
        } else if let webPush = services.webPush {
            try operations.handler(type: ConnectionGuardHandler.self).expectNoPreface()
            let requestGuard = HTTP1RequestGuard(limits: webPush.http1Limits, listener: "web push", recorder: recorder, logger: services.logger)
            try requestGuard.installServerPipeline(after: self, application: WebPushHTTP1Handler(
                service: webPush, scenarios: services.scenarios, connection: scenarioConnection, recorder: recorder,
                logger: services.logger, requestGuard: requestGuard
            ), malformed: .webPushMalformedHTTP1, on: operations)
        }
    }
}
