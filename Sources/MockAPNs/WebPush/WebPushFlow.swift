import MockAPNsConnections
import MockAPNsAnswer
import MockAPNsCore
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsWebPush
import MockAPNsWire
import MockAPNsSessions
import Synchronization

/// What every web push connection shares: the decision core, where its endpoints live, the
/// journal. One per server (Safari's web push service has one environment).
struct WebPushService: Sendable {
    let decider: WebPushDecider
    let endpoint: WebPushEndpointOrigin
    let clock: ServerClock
    /// The largest body the core accepts (`WebPushOptions.maximumPayloadBytes`): an HTTP/1.1
    /// body is kept up to one byte more, enough to judge it.
    let maximumPayloadBytes: Int
    /// How long an HTTP/1.1 request may take and how large a body it may declare.
    let http1Limits: HTTP1RequestGuard.Limits
    /// The sessions a subscription may belong to.
    var sessions: SessionDirectory? = nil

    /// The scenario that decides a push to `decision`'s subscription: its session's, or `nil`
    /// for the server's (no session, or one that has ended).
    func scenarios(for decision: WebPushDecision) -> ScenarioSwitch? {
        guard let session = decision.subscriptionSession else { return nil }
        return sessions?.scope(id: session)?.scenarios
    }
}

/// One web push request through the answer flow, whichever HTTP version carried it.
///
/// The core decides once, when the request arrives (its headers read, its VAPID token checked,
/// its body decrypted, all in the one pass of `WebPushDecider`); the scenario's rules match the
/// facts of that pass (the decrypted message is the payload they look into); the answer is
/// Apple's for the decision, or the scenario's; the record is written once, from what was sent.
struct WebPushFlow {
    let request: WebPushRequest
    let decision: WebPushDecision
    /// When the request arrived, by the server clock (the record's `expiration` is `TTL`
    /// seconds after it).
    let arrivedAtMilliseconds: Int64

    init(_ request: WebPushRequest, authority: String?, service: WebPushService) {
        self.request = request
        var origins = [service.endpoint.origin]
        if let authority, !authority.isEmpty { origins.append("https://" + authority) }
        self.decision = service.decider.decide(request, origins: origins)
        self.arrivedAtMilliseconds = service.clock.millisecondsSince1970
    }

    /// How web push answers look: no `apns-id` (Apple's web push answers are not documented
    /// to carry one), and `201 Created` for an accepted message (RFC 8030 section 5).
    static let shape = ResponseShape(includesAPNsID: false, acceptedStatus: 201)

    /// The facts scenario rules match: the subscription as the device token, `Topic` as the
    /// topic, and the decrypted message (or, when it did not decrypt, the body) as the payload.
    func scenarioFacts() -> ScenarioRequest {
        ScenarioRequest(
            transport: .webPush, deviceToken: decision.subscriptionID, topic: decision.topic, pushType: nil, priority: nil,
            payload: decision.message?.plaintext ?? request.body, payloadSize: request.bodyLength, authentication: .notRequired
        )
    }

    /// The core's answer: its verdict, which `shape` writes as Apple's web push service does
    /// (`201 Created` and no body for a message it took, RFC 8030; no `apns-id`).
    func coreAnswer() -> CoreAnswer {
        guard let reason = decision.reason else { return CoreAnswer(verdict: .accepted(apnsID: "", uniqueID: nil)) }
        return CoreAnswer(verdict: .rejected(reason: reason, apnsID: "", timestamp: reason.carriesTimestamp ? arrivedAtMilliseconds : nil))
    }

    /// What the core noticed, to be journaled before the record.
    var diagnoses: [Diagnosis] { decision.diagnoses }

    /// The request's one record, from what was sent.
    func record(_ sent: SentAnswer) -> NotificationRecord {
        let ttl = decision.ttl
        let expiration: Int64? = ttl.map { $0 == 0 ? 0 : arrivedAtMilliseconds / 1000 + Int64($0) }
        // The application server's public key identifies it (it is no secret); the JWT is never kept.
        var authentication = JournalAuthentication(kind: decision.vapid == nil ? "missing" : "vapid", keyID: decision.vapid?.key)
        authentication.session = decision.subscriptionSession
        if decision.reason == .badJwtToken {
            authentication.refusal = .badJwtToken
            authentication.detail = decision.diagnoses.first { $0.code.rawValue.hasPrefix("webPush.vapid") }
                .map { JournalAuthentication.boundedDetail($0.message) }
        }
        var details = WebPushDetails()
        details.ttl = ttl
        details.urgency = decision.urgency
        details.contentEncoding = decision.contentEncoding
        details.subject = decision.vapid?.subject
        details.audience = decision.vapid?.audience
        details.jwtExpiration = decision.vapid?.expiration
        details.applicationServerKey = decision.vapid?.key
        if let message = decision.message {
            details.message = message.plaintext
            details.notification = message.declarative.map(WebPushNotificationContent.init)
            details.notificationProblem = message.declarativeProblem
        } else if let problem = decision.diagnoses.first(where: { $0.code == .webPushUndecryptable }) {
            details.messageProblem = problem.message
        }
        return NotificationRecord(
            transport: .webPush, deviceToken: decision.subscriptionID ?? "", topic: decision.topic,
            expiration: expiration, collapseID: decision.topic, payload: request.body, payloadLength: request.bodyLength,
            authentication: authentication, answer: sent, webPush: details
        )
    }
}

extension WebPushNotificationContent {
    init(_ message: DeclarativeWebPushMessage) {
        self.init(
            title: message.title, body: message.body, navigate: message.navigate, lang: message.lang, dir: message.dir,
            tag: message.tag, silent: message.silent, appBadge: message.appBadge, mutable: message.mutable
        )
    }
}

/// The origin the web push listener's endpoints name, known once it is bound (the port may
/// be a free one): set once by `start()`, read by every request.
final class WebPushEndpointOrigin: Sendable {
    private let value: Mutex<String>

    init(_ origin: String) {
        value = Mutex(origin)
    }

    var origin: String { value.withLock { $0 } }

    func set(_ origin: String) {
        value.withLock { $0 = origin }
    }
}
