import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsScenario
import MockAPNsBroadcast

/// Broadcast sends and channel management requests: the same connection, credentials,
/// scenario and journal as device pushes, with their own decision cores.
extension HTTP2ConnectionBridge {
    /// `POST /4/broadcasts/apps/<bundleID>` on the provider API.
    func answerBroadcast(
        _ request: HTTP2Request, headers: [HTTPHeader], authorization: String?, topic: String?, handler: NGHTTP2ServerHandler
    ) {
        guard let decider = services.broadcasts else { return }
        let bundleID = Self.bundleID(in: request.firstValue(of: ":path"), after: BroadcastDecider.pathPrefix)
        // A provider token is checked against a topic: the request's, else the bundle id's
        // Live Activity topic.
        let tokenTopic = topic ?? bundleID.map { $0 + (PushType.liveactivity.topicSuffix ?? "") }
        let authentication = authenticate(authorization: authorization, topic: tokenTopic, handler: handler)
        let authenticationDetail = refusalDetail
        let push = HTTP2PushRequest(headers: headers, body: Array(request.body.readableBytesView))
        let requestID = decider.responseRequestID(for: headers)
        let context = DecisionContext(environment: services.environment, authentication: authentication)
        let journaling = self.journaling
        let streamID = request.streamID
        var judged: BroadcastDecision?
        scenario.answer(
            request,
            facts: ScenarioRequest(http2: headers, body: push.body, bodyLength: request.bodyLength, authentication: authentication),
            handler: handler,
            shape: ResponseShape(extraHeaders: [HTTPHeader(name: "apns-request-id", value: requestID)], uniqueIDInEveryEnvironment: true),
            core: {
                let decision = decider.decide(push, requestID: requestID, context: context)
                judged = decision
                return CoreAnswer(verdict: decision.verdict)
            },
            record: { sent in
                let record = judged?.record ?? decider.describe(push, requestID: requestID, authentication: authentication)
                journaling.recordBroadcast(
                    record, diagnoses: judged?.diagnoses ?? [], sent: sent, streamID: streamID, authenticationDetail: authenticationDetail)
            }
        )
    }

    /// A request on the channel management listener.
    func answerChannelManagement(
        _ request: HTTP2Request, headers: [HTTPHeader], authorization: String?, handler: NGHTTP2ServerHandler
    ) {
        guard let decider = services.channelManagement else { return }
        // A provider token is checked against the bundle id of the path.
        let bundleID = Self.bundleID(in: request.firstValue(of: ":path"), after: "/1/apps/")
        let authentication = authenticate(authorization: authorization, topic: bundleID, handler: handler)
        let authenticationDetail = refusalDetail
        let push = HTTP2PushRequest(headers: headers, body: Array(request.body.readableBytesView))
        let context = DecisionContext(environment: services.environment, authentication: authentication)
        let requestID = decider.responseRequestID(for: headers)
        let journaling = self.journaling
        let streamID = request.streamID
        var judged: ChannelManagementOutcome?
        scenario.answer(
            request,
            facts: ScenarioRequest(channelManagement: headers, body: push.body, authentication: authentication),
            handler: handler,
            shape: ResponseShape(extraHeaders: [HTTPHeader(name: "apns-request-id", value: requestID)], includesAPNsID: false),
            core: {
                let outcome = decider.judge(push, requestID: requestID, context: context)
                judged = outcome
                let verdict: Verdict = outcome.reason.map { .rejected(reason: $0, apnsID: requestID, timestamp: nil) }
                    ?? .accepted(apnsID: requestID, uniqueID: nil)
                // The registry changes only if this answer is the one sent.
                return CoreAnswer(verdict: verdict, response: outcome.response, commit: { decider.apply(outcome) })
            },
            record: { sent in
                let outcome = judged ?? decider.describe(push, requestID: requestID)
                journaling.recordChannelOperation(
                    outcome, sent: sent, streamID: streamID, authentication: authentication, authenticationDetail: authenticationDetail)
            }
        )
    }

    /// The path segment after `prefix`, up to the next `/` or `?`; `nil` when the path does
    /// not start with `prefix` or the segment is empty.
    static func bundleID(in path: String?, after prefix: String) -> String? {
        guard let path, path.hasPrefix(prefix) else { return nil }
        let segment = path.dropFirst(prefix.count).prefix { $0 != "/" && $0 != "?" }
        return segment.isEmpty ? nil : String(segment)
    }
}
