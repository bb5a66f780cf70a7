import MockAPNsLogging
import MockAPNsConnections
import MockAPNsWire
import Logging
import MockAPNsAnswer
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsTLS
import NIOCore
import MockAPNsScenario
import MockAPNsBroadcast
import MockAPNsUpstream
import MockAPNsSessions

/// What every HTTP/2 connection of one listener shares.
struct HTTP2ConnectionServices: Sendable {
    let decider: PushDecider
    let tokenVerifier: ProviderTokenVerifier
    let environment: APNsEnvironment
    /// `false` skips authentication entirely (`--no-auth`).
    var requiresAuthentication: Bool
    /// The SETTINGS for certificate connections, and for token connections once a valid token
    /// has been seen.
    let http2Settings: HTTP2ServerConfiguration
    /// The running scenario, consulted for every request.
    let scenarios: ScenarioSwitch
    /// The sessions a connection's credentials may belong to (its scenario, registry and
    /// records then being the session's); `decider` and `scenarios` are the default session's.
    let sessions: SessionDirectory
    let clock: ServerClock
    /// Where frames, notifications and errors are recorded.
    let journal: Journal
    let logger: Logger
    /// The PEM file client certificates must chain to, named when one does not.
    var clientTrustRootsPath: String? = nil
    /// Watches all connections together for a provider that uses each for one request.
    var churn: HTTP2ChurnWatch? = nil
    /// Says refused streams in the log: the first of a spell whole, the rest with a count.
    var refusalNotices: StreamRefusalNotices? = nil
    /// Which API the listener serves: the provider API (device pushes and broadcasts) or the
    /// broadcast channel management API.
    var role: HTTP2ListenerRole = .provider
    /// Decides broadcast sends (`/4/broadcasts/apps/<bundleID>`) on the provider API.
    var broadcasts: BroadcastDecider?
    /// Decides channel management requests on the management listener.
    var channelManagement: ChannelManagementDecider?
    /// Decides web push requests on the web push listener.
    var webPush: WebPushService?
    /// Upstream mode: where requests the scenario leaves to the core are relayed.
    var upstream: UpstreamRelayService?
}

/// The API an HTTP/2 listener serves.
enum HTTP2ListenerRole: Sendable {
    /// `POST /3/device/<token>` and `POST /4/broadcasts/apps/<bundleID>`.
    case provider
    /// `/1/apps/<bundleID>/channels` and `/all-channels`.
    case channelManagement
    /// `POST /<subscription>`: Safari's web push endpoint (VAPID, no TLS client identity).
    case webPush
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
        /// No certificate: each request needs a provider token (checked against `tokenState`).
        case providerToken(streamLimitRaised: Bool)
    }

    let services: HTTP2ConnectionServices
    private var credentials = Credentials.pending
    /// The provider-token connection's verifier state, changed in place by each request's check:
    /// kept beside `credentials` rather than in its case, where every request copied it out and
    /// back (a retain and a release for each of its strings and arrays).
    private var tokenState = ProviderTokenConnectionState()
    /// The `iat` of the provider token the last `authenticate` call accepted, for the record.
    private var acceptedTokenIssuedAt: Int64?
    /// Why the last `authenticate` call refused the credentials, for the record and the log.
    private(set) var refusalDetail: String?
    /// Why this connection's client certificate is refused, when it is.
    private var certificateRefusalDetail: String?
    /// The session the connection's credentials belong to: the default one until a client
    /// certificate or a valid provider token says otherwise.
    var scope: SessionScope
    /// The team `scope` was found for: a provider token of another team is looked up again.
    var scopeTeam: String?
    private var logger: Logger
    /// Decides each request through the scenario and answers it on its stream.
    let answers: AnswerFlow<HTTP2StreamWriter>
    /// The SETTINGS this connection was given (the server's, with the scenario's overrides).
    private var connectionSettings = HTTP2ServerConfiguration()
    /// Records this connection's frames, notifications and errors.
    let journaling: HTTP2Journaling
    private let connectionID: UInt64
    /// Requests received, and those not yet answered (for churn detection).
    private var requestCount = 0
    /// The last request's `authorization` and `apns-topic`: a provider sends the same ones for
    /// up to an hour, and a value equal to the last is read as that string, not made again.
    private var lastAuthorization: String?
    private var lastTopic: String?
    /// The device token of the last push the core judged: the next push to the same device
    /// shares its string (`ProviderRequest.previousDeviceToken`).
    private var lastDeviceToken: String?
    /// The last request relayed upstream: the next one takes its lists whole when it repeats
    /// its fields, and shares the strings of those it repeats otherwise.
    private var lastHop: UpstreamHop?
    private var requestsInFlight = 0
    /// Whether the HTTP/2 session started (only such connections count for churn).
    private var started = false
    /// A server shutdown that arrived before HTTP/2 started (the TLS handshake was still
    /// running): HTTP/2 starts with its GOAWAY, so no request is ever taken.
    private var shutdownBeforeStart: HTTP2GracefulShutdownEvent?
    /// The connection's event loop, where a summary of refused streams is scheduled.
    private var eventLoop: (any EventLoop)?

    init(services: HTTP2ConnectionServices, scenarioConnection: ScenarioConnection, recorder: ConnectionJournal) {
        self.services = services
        self.connectionID = recorder.connectionID
        let journaling = HTTP2Journaling(journal: services.journal, recorder: recorder, logger: services.logger)
        self.journaling = journaling
        self.logger = services.logger
        self.scope = services.sessions.defaultScope
        self.answers = AnswerFlow(
            writer: HTTP2StreamWriter(logger: services.logger, recorder: recorder), scenarios: services.scenarios, connection: scenarioConnection,
            environment: services.environment, clock: services.clock, generatedIDCase: services.decider.options.generatedAPNsIDCase,
            logger: services.logger, recorder: recorder,
            recordDiagnosis: { code, message, stream in journaling.note(message, code: code, streamID: stream) }
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        eventLoop = context.eventLoop
    }

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.remoteAddress {
            logger[metadataKey: "peer"] = "\(remote)"
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if started, let churn = services.churn?.closed(connectionID, requests: requestCount) {
            journaling.churn(churn)
        }
        services.upstream?.release(affinity: connectionID)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            startHTTP2(context: context, session: completed.session)
        case let failed as TLSHandshakeFailed:
            TLSRefusalLog.handshakeRefused(failed, listener: "HTTP/2", logger: logger)
        case let shutdown as HTTP2GracefulShutdownEvent:
            // Once HTTP/2 runs, its handler (in front of this one) takes the event; reaching
            // here means the handshake is not finished yet.
            shutdownBeforeStart = shutdown
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func startHTTP2(context: ChannelHandlerContext, session tls: TLSSessionInfo) {
        answers.writer.channel = context.channel
        var tokenConnection = false
        switch tls.peerCertificate {
        case _ where !services.requiresAuthentication:
            credentials = .certificate(.notRequired)
        case .notPresented:
            tokenState = ProviderTokenConnectionState()
            credentials = .providerToken(streamLimitRaised: false)
            tokenConnection = true
        case .trusted:
            credentials = .certificate(certificateAuthentication(tls.peerCertificateChainDER.first))
        case .untrusted(let reason) where services.upstream != nil:
            // Upstream mode: the provider's certificate is Apple's, not this server's CA's; the
            // upstream is the judge of it, and MockAPNs reads its identity for its own verdicts.
            logger.info("upstream mode: the client certificate is not this server's CA's (\(reason)); its topics are read as given")
            credentials = .certificate(certificateAuthentication(tls.peerCertificateChainDER.first))
        case .untrusted(let reason):
            let roots = services.clientTrustRootsPath.map { " (\($0))" } ?? ""
            let detail = "the client certificate does not chain to the trusted roots\(roots): \(reason)"
            logger.notice("\(detail); requests get 403 BadCertificate")
            certificateRefusalDetail = detail
            credentials = .certificate(.rejected(.badCertificate))
        }
        // The certificate's session is known now, so its scenario sets the connection's SETTINGS.
        var settings = scenarioSettings(services.http2Settings)
        connectionSettings = settings
        settings.recordsFrames = journaling.recordsFrames
        if tokenConnection {
            settings.maxConcurrentStreams = 1
            // Clients that open streams before reading SETTINGS lose some; record what they were.
            settings.decodesRefusedStreamHeaders = true
        }
        let http2 = NGHTTP2ServerHandler(configuration: settings, delegate: self)
        answers.writer.handler = http2
        do {
            try context.pipeline.syncOperations.addHandler(http2, position: .before(self))
            started = true
            if let churn = services.churn?.opened(connectionID) { journaling.churn(churn) }
            if let shutdown = shutdownBeforeStart {
                http2.gracefulShutdown(debugData: shutdown.debugData)
            }
        } catch {
            logger.error("could not start HTTP/2 on the connection: \(error)")
            context.close(promise: nil)
        }
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {
        requestCount += 1
        requestsInFlight += 1
        if requestCount == 2 { services.churn?.reused(connectionID) }
        let arrivedAt = NIODeadline.now()
        // The head the session read as the fields arrived: every reader asks it for a field.
        switch services.role {
        case .webPush:
            answerWebPush(request, handler: handler)
            return
        case .channelManagement:
            answerChannelManagement(request, authorization: credentials(of: request.head).authorization,
                                    path: request.head[.path], handler: handler)
            return
        case .provider:
            break
        }
        let (authorization, topic) = credentials(of: request.head)
        if BroadcastDecider.isBroadcastPath(request.head) {
            answerBroadcast(request, authorization: authorization, topic: topic, path: request.head[.path], handler: handler)
            return
        }
        let authentication = authenticate(authorization: authorization, topic: topic, handler: handler)
        scope.touch(at: arrivedAt)
        let exchange = DevicePushExchange(
            request, previousDeviceToken: lastDeviceToken,
            authentication: authentication, tokenIssuedAt: acceptedTokenIssuedAt, authenticationDetail: refusalDetail,
            context: DecisionContext(environment: services.environment, authentication: authentication),
            decider: scope.decider, journaling: journaling, arrivedAt: arrivedAt,
            scenarioReadsPayload: scope.scenarios.current.readsPayload
        )
        answers.answer(
            exchange, on: request.streamID, apnsID: request.head[.apnsID], upstream: upstreamHop(request, api: .provider, comparesAnswers: true))
        if let token = exchange.judgedDeviceToken { lastDeviceToken = token }
    }

    /// The `authorization` and `apns-topic` of `head`, each the last request's string when it
    /// is the same value.
    private func credentials(of head: RequestHead) -> (authorization: String?, topic: String?) {
        lastAuthorization = head.value(.authorization, reusing: lastAuthorization)
        lastTopic = head.value(.apnsTopic, reusing: lastTopic)
        return (lastAuthorization, lastTopic)
    }

    func authenticate(authorization: String?, topic: String?, handler: NGHTTP2ServerHandler) -> AuthenticationResult {
        acceptedTokenIssuedAt = nil
        refusalDetail = nil
        switch credentials {
        case .pending:
            return .unauthenticated
        case .certificate(let result):
            refusalDetail = certificateRefusalDetail
            return result
        case .providerToken(let raised):
            let outcome = services.tokenVerifier.authenticate(
                authorization: authorization, topic: topic,
                serverEnvironment: services.environment, state: &tokenState
            )
            acceptedTokenIssuedAt = outcome.identity?.issuedAt
            if case .rejected(let rejection) = outcome { refusalDetail = rejection.detail }
            if let team = outcome.identity?.teamID, team != scopeTeam {
                // A connection keeps to one team (`checkMixing`): this runs for its first token.
                adopt(services.sessions.scope(forTeam: team), team: team)
            }
            if let notes = outcome.identity?.notes, !notes.isEmpty, outcome.identity?.servedFromCache == false {
                logger.info("provider token accepted with notes: \(journaling.printable(notes.map { "\($0)" }.joined(separator: "; ")))")
                for note in notes { journaling.note("\(note)", code: .providerTokenNote) }
            }
            if !raised, outcome.identity != nil {
                // Apple raises the limit after the first request with a valid token.
                handler.setMaxConcurrentStreams(connectionSettings.maxConcurrentStreams)
                credentials = .providerToken(streamLimitRaised: true)
            }
            return outcome.authenticationResult
        }
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, streamError: HTTP2StreamError) {
        // nghttp2 reset a stream over a client mistake (e.g. an upper-case header name).
        noteRefusal(.reset) { "HTTP/2 stream \(streamError.streamID) reset: \(journaling.printable(streamError.message))" }
        journaling.streamError(streamError)
        if let headers = streamError.headers {
            // A request nobody read: its record, like every request's.
            journaling.refusedRequest(
                streamID: streamError.streamID, headers: headers,
                sent: .nothing(undelivered: "the stream was reset (\(HTTP2ErrorCode.name(of: streamError.errorCode))) before the request was read"),
                dropped: true, problem: "Stream reset: \(streamError.message)"
            )
        }
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32) {
        guard requestsInFlight > 0 else { return }
        requestsInFlight -= 1
        if requestCount == 1, requestsInFlight == 0 { services.churn?.idleAfterFirstRequest(connectionID) }
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuseStream refused: HTTP2RefusedStream) {
        noteRefusal(.refused) { "HTTP/2 stream \(refused.streamID) refused: \(refused.reason). \(refused.meaning)" }
        journaling.refusedStream(refused)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuse refusal: HTTP2RequestRefusal) {
        noteRefusal(.answeredEarly) { "HTTP/2 \(journaling.printable(refusal.description))" }
        journaling.refusal(refusal)
        journaling.refusedRequest(
            streamID: refusal.streamID, headers: refusal.headers,
            sent: SentAnswer(status: refusal.status, accepted: false), dropped: false,
            problem: "Answered \(refusal.status) before the request was read: \(refusal.message)"
        )
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didIgnoreStream streamID: Int32, afterGoAwayNaming lastStreamID: Int32) {
        noteRefusal(.openedAfterGoAway) { "HTTP/2 stream \(streamID) opened after GOAWAY (last stream \(lastStreamID)); ignored" }
        journaling.streamAfterGoAway(streamID, lastStreamID: lastStreamID)
    }

    /// Logs a refused stream, or counts it for the shared summary (`StreamRefusalNotices`).
    private func noteRefusal(_ kind: StreamRefusalNotices.Kind, _ message: () -> String) {
        guard let notices = services.refusalNotices, let eventLoop else {
            logger.notice("\(message())")
            return
        }
        notices.note(kind, logger: logger, on: eventLoop, message)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord) {
        journaling.record(frame)
    }

    func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError) {
        logger.notice("HTTP/2 connection error: \(journaling.printable(connectionError.description))")
        journaling.connectionError(connectionError)
    }
}

extension HTTP2ConnectionBridge {
    /// In upstream mode, where `request` goes upstream: the route for its API and the
    /// provider's kind of credential. `nil` without upstream mode, for an API not relayed, or
    /// for a request that cannot be relayed whole.
    func upstreamHop(_ request: HTTP2Request, api: UpstreamRelayService.API, comparesAnswers: Bool) -> UpstreamHop? {
        guard let upstream = services.upstream else { return nil }
        let certificateProvider: Bool
        switch credentials {
        case .certificate: certificateProvider = true
        case .pending, .providerToken: certificateProvider = false
        }
        guard let route = upstream.route(for: api, certificateProvider: certificateProvider) else { return nil }
        let hop = UpstreamHop(request, after: lastHop, route: route, comparesAnswers: comparesAnswers, affinity: connectionID)
        if let hop { lastHop = hop }
        return hop
    }
}
