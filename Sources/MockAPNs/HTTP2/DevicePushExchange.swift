import MockAPNsAnswer
import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsScenario
import NIOCore

/// `POST /3/device/<token>`: a push to one device, decided by the push decision core.
final class DevicePushExchange: ProviderExchange {
    let shape = ResponseShape.push
    private let push: ProviderRequest
    private let bodyLength: Int
    /// The body examined once, for every reader of it: the scenario's payload matches, the
    /// decision (its shape rule and payload type rules), the not-JSON diagnosis and the
    /// delivery view. `nil` for a body stored cut short: it cannot be judged (one larger than
    /// APNs takes is refused anyway).
    private let payloadJSON: PayloadJSON?
    private let streamID: Int32
    private let authentication: AuthenticationResult
    private let context: DecisionContext
    private let decider: PushDecider
    private let journaling: HTTP2Journaling
    private let tokenIssuedAt: Int64?
    private let authenticationDetail: String?
    private let arrivedAt: NIODeadline
    /// The request as the core judged it; nil when a scenario answered before the core.
    private var judged: PushRequest?
    private var handlingMicroseconds: Int?

    init(
        _ request: HTTP2Request, previousDeviceToken: String? = nil, authentication: AuthenticationResult, tokenIssuedAt: Int64?, authenticationDetail: String?,
        context: DecisionContext, decider: PushDecider, journaling: HTTP2Journaling, arrivedAt: NIODeadline,
        scenarioReadsPayload: Bool = false
    ) {
        self.push = ProviderRequest(head: request.head, body: request.body, previousDeviceToken: previousDeviceToken)
        self.bodyLength = request.bodyLength
        self.payloadJSON = request.isBodyTruncated ? nil : PayloadJSON(
            request.body,
            keepingValue: scenarioReadsPayload || PayloadTypeRules.readsPayload(decider.pushType(of: request.head, context: context))
        )
        self.streamID = request.streamID
        self.authentication = authentication
        self.tokenIssuedAt = tokenIssuedAt
        self.authenticationDetail = authenticationDetail
        self.context = context
        self.decider = decider
        self.journaling = journaling
        self.arrivedAt = arrivedAt
    }

    func scenarioFacts() -> ScenarioRequest {
        ScenarioRequest(http2: push.head, body: push.body, bodyLength: bodyLength, authentication: authentication, payloadJSON: payloadJSON)
            .routed(by: decider, context: context)
    }

    /// The device token the core read, once it judged the request. (The validator shares it
    /// with the next request only where that one's token is well-formed and the same.)
    var judgedDeviceToken: String? {
        judged.flatMap { $0.deviceToken.isEmpty ? nil : $0.deviceToken }
    }

    func decide() -> CoreAnswer {
        let (verdict, request) = journaling.judge(push, payloadJSON: payloadJSON, streamID: streamID, context: context, decider: decider)
        judged = request
        handlingMicroseconds = microsecondsSinceArrival()
        return CoreAnswer(verdict: verdict)
    }

    func record(_ sent: SentAnswer) {
        let request = judged ?? decider.route(PushRequest(bestEffort: push), context: context)
        journaling.recordNotification(
            request, sent: sent, bodyLength: bodyLength, streamID: streamID, authentication: authentication,
            environment: context.environment, tokenIssuedAt: tokenIssuedAt, authenticationDetail: authenticationDetail,
            payloadIsJSON: payloadJSON?.isJSON,
            problem: HTTP2RequestProblem.describe(sent.reason, head: push.head, scope: decider.options.duplicateHeaderScope),
            handlingMicroseconds: handlingMicroseconds ?? microsecondsSinceArrival()
        )
    }

    private func microsecondsSinceArrival() -> Int {
        Int((NIODeadline.now() - arrivedAt).nanoseconds / 1000)
    }
}
