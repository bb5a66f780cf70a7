import MockAPNsWire
import MockAPNsAnswer
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsScenario
import MockAPNsBroadcast
import MockAPNsUpstream

/// Broadcast sends and channel management requests: the same connection, credentials,
/// scenario and journal as device pushes, with their own decision cores.
extension HTTP2ConnectionBridge {
    /// `POST /4/broadcasts/apps/<bundleID>` on the provider API.
    func answerBroadcast(
        _ request: HTTP2Request, authorization: String?, topic: String?, path: String?, handler: NGHTTP2ServerHandler
    ) {
        guard services.broadcasts != nil else { return }
        let bundleID = Self.bundleID(in: path, after: BroadcastDecider.pathPrefix)
        // A provider token is checked against a topic: the request's, else the bundle id's
        // Live Activity topic.
        let tokenTopic = topic ?? bundleID.map { $0 + (PushType.liveactivity.topicSuffix ?? "") }
        let authentication = authenticate(authorization: authorization, topic: tokenTopic, handler: handler)
        // The channels are those of the session the credentials belong to.
        let exchange = BroadcastExchange(
            request, authentication: authentication, authenticationDetail: refusalDetail,
            context: DecisionContext(environment: services.environment, authentication: authentication),
            decider: scope.broadcasts, journaling: journaling
        )
        answers.answer(
            exchange, on: request.streamID, apnsID: request.head[.apnsID], upstream: upstreamHop(request, api: .provider, comparesAnswers: false))
    }

    /// A request on the channel management listener.
    func answerChannelManagement(_ request: HTTP2Request, authorization: String?, path: String?, handler: NGHTTP2ServerHandler) {
        guard services.channelManagement != nil else { return }
        // A provider token is checked against the bundle id of the path.
        let bundleID = Self.bundleID(in: path, after: "/1/apps/")
        let authentication = authenticate(authorization: authorization, topic: bundleID, handler: handler)
        let exchange = ChannelManagementExchange(
            request, authentication: authentication, authenticationDetail: refusalDetail,
            context: DecisionContext(environment: services.environment, authentication: authentication),
            decider: scope.channelManagement, journaling: journaling
        )
        answers.answer(
            exchange, on: request.streamID, apnsID: request.head[.apnsID],
            upstream: upstreamHop(request, api: .channelManagement, comparesAnswers: false))
    }

    /// The path segment after `prefix`, up to the next `/` or `?`; `nil` when the path does
    /// not start with `prefix` or the segment is empty.
    static func bundleID(in path: String?, after prefix: String) -> String? {
        guard let path, path.hasPrefix(prefix) else { return nil }
        let segment = path.dropFirst(prefix.count).prefix { $0 != "/" && $0 != "?" }
        return segment.isEmpty ? nil : String(segment)
    }
}

/// `POST /4/broadcasts/apps/<bundleID>`: a broadcast send, decided by the broadcast core.
final class BroadcastExchange: ProviderExchange {
    let shape: ResponseShape
    private let push: ProviderRequest
    private let bodyLength: Int
    /// The body examined once, its value kept (the Live Activity rules read it), for the
    /// scenario's payload matches and the broadcast core; `nil` for a body stored cut short.
    private let payloadJSON: PayloadJSON?
    private let streamID: Int32
    private let requestID: String
    private let authentication: AuthenticationResult
    private let authenticationDetail: String?
    private let context: DecisionContext
    private let decider: BroadcastDecider
    private let journaling: HTTP2Journaling
    private var judged: BroadcastDecision?

    init(
        _ request: HTTP2Request, authentication: AuthenticationResult, authenticationDetail: String?,
        context: DecisionContext, decider: BroadcastDecider, journaling: HTTP2Journaling
    ) {
        push = ProviderRequest(head: request.head, body: request.body)
        bodyLength = request.bodyLength
        payloadJSON = request.isBodyTruncated ? nil : PayloadJSON(request.body, keepingValue: true)
        streamID = request.streamID
        requestID = decider.responseRequestID(for: request.head)
        shape = ResponseShape(extraHeaders: [HTTPHeader(name: "apns-request-id", value: requestID)], uniqueIDInEveryEnvironment: true)
        self.authentication = authentication
        self.authenticationDetail = authenticationDetail
        self.context = context
        self.decider = decider
        self.journaling = journaling
    }

    func scenarioFacts() -> ScenarioRequest {
        ScenarioRequest(http2: push.head, body: push.body, bodyLength: bodyLength, authentication: authentication, payloadJSON: payloadJSON)
    }

    func decide() -> CoreAnswer {
        let decision = decider.decide(push, requestID: requestID, context: context, payloadJSON: payloadJSON)
        judged = decision
        return CoreAnswer(verdict: decision.verdict)
    }

    func record(_ sent: SentAnswer) {
        let record = judged?.record ?? decider.describe(push, requestID: requestID, authentication: authentication)
        // A relayed broadcast was judged upstream, where its channel lives: this server's
        // diagnoses of it (a channel it never made) would mislead.
        let diagnoses = sent.upstream == nil ? judged?.diagnoses ?? [] : []
        journaling.recordBroadcast(
            record, diagnoses: diagnoses, sent: sent, streamID: streamID, authenticationDetail: authenticationDetail)
    }
}

/// A request on the channel management listener (`/1/apps/<bundleID>/channels`,
/// `/all-channels`): decided by the channel management core, whose verdict (and what its
/// acceptance carries) the flow renders in `shape`; the channel registry changes only once
/// that answer is sent.
final class ChannelManagementExchange: ProviderExchange {
    let shape: ResponseShape
    private let push: ProviderRequest
    private let streamID: Int32
    private let requestID: String
    private let authentication: AuthenticationResult
    private let authenticationDetail: String?
    private let context: DecisionContext
    private let decider: ChannelManagementDecider
    private let journaling: HTTP2Journaling
    private var judged: ChannelManagementOutcome?

    init(
        _ request: HTTP2Request, authentication: AuthenticationResult, authenticationDetail: String?,
        context: DecisionContext, decider: ChannelManagementDecider, journaling: HTTP2Journaling
    ) {
        push = ProviderRequest(head: request.head, body: request.body)
        streamID = request.streamID
        requestID = decider.responseRequestID(for: request.head)
        shape = ChannelManagementDecider.shape(requestID: requestID)
        self.authentication = authentication
        self.authenticationDetail = authenticationDetail
        self.context = context
        self.decider = decider
        self.journaling = journaling
    }

    func scenarioFacts() -> ScenarioRequest {
        ScenarioRequest(channelManagement: push.head, body: push.body, authentication: authentication)
    }

    func decide() -> CoreAnswer {
        let outcome = decider.judge(push, requestID: requestID, context: context)
        judged = outcome
        // The registry changes only if this answer is the one sent.
        let decider = self.decider
        return CoreAnswer(verdict: outcome.verdict, acceptance: outcome.acceptance, commit: { decider.apply(outcome) })
    }

    func record(_ sent: SentAnswer) {
        var outcome = judged ?? decider.describe(push, requestID: requestID)
        if judged != nil {
            // The record keeps the core's answer byte for byte (its body is the channel's JSON).
            outcome.response = outcome.answer
        }
        if let upstream = sent.upstream {
            // Relayed: the channel and the answer are the upstream's, and this server's
            // registry did not change.
            outcome.effect = nil
            outcome.reason = sent.reason
            if upstream.failureKind == nil, let status = sent.status {
                let headers = sent.scriptedHeaders ?? []
                outcome.response = ProviderAnswer(status: status, headers: headers, body: sent.scriptedBody)
                if let id = headers.first(where: { $0.name == "apns-channel-id" })?.value { outcome.channelID = id }
                if let id = headers.first(where: { $0.name == "apns-request-id" })?.value { outcome.requestID = id }
            }
        }
        journaling.recordChannelOperation(
            outcome, sent: sent, streamID: streamID, authentication: authentication, authenticationDetail: authenticationDetail)
    }
}
