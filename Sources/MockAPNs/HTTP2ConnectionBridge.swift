import Logging
import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsTLS
import NIOCore

/// What every HTTP/2 connection of one listener shares.
struct HTTP2ConnectionServices: Sendable {
    let decider: PushDecider
    let tokenVerifier: ProviderTokenVerifier
    let environment: APNsEnvironment
    /// `false` skips authentication entirely (`--no-auth`).
    let requiresAuthentication: Bool
    /// The SETTINGS for certificate connections, and for token connections once a valid token
    /// has been seen.
    let http2Settings: HTTP2ServerConfiguration
    /// The running scenario, consulted for every request.
    let scenarios: ScenarioSwitch
    let clock: ServerClock
    /// Where frames, notifications and errors are recorded.
    let journal: Journal
    let logger: Logger
}

/// Joins one HTTP/2 connection to the decision core.
///
/// It sits after the TLS handler. When TLS completes it knows how the provider will
/// authenticate, and only then starts the HTTP/2 session (placing the nghttp2 handler in
/// front of itself), because Apple's first SETTINGS depend on it: a certificate connection
/// gets the full stream limit, a token connection gets one stream until its first request
/// with a valid provider token (apns-protocol A.8).
///
/// For each complete request it authenticates (certificate identity, or the provider token
/// through the per-connection verifier state), lets the core decide, and writes the verdict
/// back as Apple's response. It moves values only; every rule lives in `MockAPNsCore`.
final class HTTP2ConnectionBridge: ChannelInboundHandler, NGHTTP2ServerDelegate {
    typealias InboundIn = ByteBuffer

    /// How requests on this connection authenticate.
    private enum Credentials {
        /// TLS has not finished yet.
        case pending
        /// A client certificate was presented: every request carries its result, and any
        /// `authorization` header is ignored, as Apple does.
        case certificate(AuthenticationResult)
        /// No certificate: each request needs a provider token.
        case providerToken(ProviderTokenConnectionState, streamLimitRaised: Bool)
    }

    private let services: HTTP2ConnectionServices
    private var credentials = Credentials.pending
    private var logger: Logger
    /// Applies the scenario's decision to each request.
    private let scenario: HTTP2ScenarioResponder
    /// Records this connection's frames, notifications and errors.
    private let journaling: HTTP2Journaling

    init(services: HTTP2ConnectionServices, scenarioConnection: ScenarioConnection, connectionID: UInt64) {
        self.services = services
        self.journaling = HTTP2Journaling(journal: services.journal, connectionID: connectionID, options: services.decider.options)
        self.logger = services.logger
        self.scenario = HTTP2ScenarioResponder(
            scenarios: services.scenarios, connection: scenarioConnection, environment: services.environment,
            clock: services.clock, generatedIDCase: services.decider.options.generatedAPNsIDCase, logger: services.logger,
            recordFault: { [journal = services.journal] stream, description in
                journal.recordFault(connection: connectionID, stream: stream, description: description)
            }
        )
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
            startHTTP2(context: context, session: completed.session)
        case let failed as TLSHandshakeFailed:
            TLSRefusalLog.handshakeRefused(failed, listener: "HTTP/2", logger: logger)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func startHTTP2(context: ChannelHandlerContext, session: TLSSessionInfo) {
        var settings = scenario.settings(services.http2Settings, channel: context.channel)
        settings.recordsFrames = journaling.recordsFrames
        switch session.peerCertificate {
        case _ where !services.requiresAuthentication:
            credentials = .certificate(.notRequired)
        case .notPresented:
            credentials = .providerToken(ProviderTokenConnectionState(), streamLimitRaised: false)
            settings.maxConcurrentStreams = 1
        case .trusted:
            credentials = .certificate(Self.certificateAuthentication(session.peerCertificateChainDER.first))
        case .untrusted(let reason):
            logger.notice("client certificate does not chain to the trusted roots: \(reason); requests get 403 BadCertificate")
            credentials = .certificate(.rejected(.badCertificate))
        }
        let http2 = NGHTTP2ServerHandler(configuration: settings, delegate: self)
        do {
            try context.pipeline.syncOperations.addHandler(http2, position: .before(self))
        } catch {
            logger.error("could not start HTTP/2 on the connection: \(error)")
            context.close(promise: nil)
        }
    }

    /// A trusted certificate's identity as the decision core takes it.
    static func certificateAuthentication(_ leaf: [UInt8]?) -> AuthenticationResult {
        guard let leaf, let identity = try? CertificateIdentity(derEncoded: leaf) else {
            return .rejected(.badCertificate)
        }
        return .certificate(identity)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(request.headers.count)
        var authorization: String?
        var topic: String?
        for field in request.headers {
            headers.append(HTTPHeader(name: field.name, value: field.value))
            if field.name == "authorization", authorization == nil { authorization = field.value }
            if field.name == "apns-topic", topic == nil { topic = field.value }
        }
        let authentication = authenticate(authorization: authorization, topic: topic, handler: handler)
        let push = HTTP2PushRequest(headers: headers, body: Array(request.body.readableBytesView))
        let decisionContext = DecisionContext(environment: services.environment, authentication: authentication)
        // The scenario runs the core (unless a before-validation rule decides) and answers;
        // it gathers the request's facts only when it has rules to match them against.
        let journaling = self.journaling
        scenario.answer(
            request,
            facts: ScenarioRequest(http2: headers, body: push.body, bodyLength: request.bodyLength, authentication: authentication),
            handler: handler
        ) {
            journaling.decide(push, streamID: request.streamID, context: decisionContext, decider: services.decider)
        }
    }

    private func authenticate(authorization: String?, topic: String?, handler: NGHTTP2ServerHandler) -> AuthenticationResult {
        switch credentials {
        case .pending:
            return .unauthenticated
        case .certificate(let result):
            return result
        case .providerToken(var state, let raised):
            let outcome = services.tokenVerifier.authenticate(
                authorization: authorization, topic: topic,
                serverEnvironment: services.environment, state: &state
            )
            if let notes = outcome.identity?.notes, !notes.isEmpty, outcome.identity?.servedFromCache == false {
                logger.info("provider token accepted with notes: \(notes.map { "\($0)" }.joined(separator: "; "))")
                for note in notes { journaling.note("\(note)", code: "providerToken.note") }
            }
            var streamLimitRaised = raised
            if !raised, outcome.identity != nil {
                // Apple raises the limit after the first request with a valid token.
                handler.setMaxConcurrentStreams(scenario.connectionSettings.maxConcurrentStreams)
                streamLimitRaised = true
            }
            credentials = .providerToken(state, streamLimitRaised: streamLimitRaised)
            return outcome.authenticationResult
        }
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, streamError: HTTP2StreamError) {
        // nghttp2 reset a stream over a client mistake (e.g. an upper-case header name).
        logger.notice("HTTP/2 stream \(streamError.streamID) reset: \(streamError.message)")
        journaling.streamError(streamError)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuse refusal: HTTP2RequestRefusal) {
        logger.notice("HTTP/2 \(refusal)")
        journaling.refusal(refusal)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord) {
        journaling.record(frame)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError) {
        logger.notice("HTTP/2 connection error: \(connectionError)")
        journaling.connectionError(connectionError)
    }
}
