import MockAPNsCore

/// The answer to one push request and everything the journal records about it.
package struct WebPushDecision: Sendable {
    /// 201 when accepted.
    package var status: Int
    /// `nil` when accepted.
    package var reason: Reason?
    /// The token from the path, as sent.
    package var subscriptionID: String?
    /// The session the subscription belongs to, when it is a session's.
    package var subscriptionSession: String?
    package var ttl: Int?
    package var urgency: String?
    package var topic: String?
    package var contentEncoding: String?
    package var vapid: VAPIDClaims?
    /// Set when the body decrypted.
    package var message: WebPushMessage?
    /// At least one for every refusal, naming the precise cause; accepted pushes may carry
    /// some too (a gone subscription answered 201, an unreadable body, a bad declarative message).
    package var diagnoses: [Diagnosis]

    package var accepted: Bool { reason == nil }

    package init(
        status: Int = 201, reason: Reason? = nil, subscriptionID: String? = nil, ttl: Int? = nil, urgency: String? = nil,
        topic: String? = nil, contentEncoding: String? = nil, vapid: VAPIDClaims? = nil, message: WebPushMessage? = nil,
        diagnoses: [Diagnosis] = []
    ) {
        self.status = status
        self.reason = reason
        self.subscriptionID = subscriptionID
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
        self.contentEncoding = contentEncoding
        self.vapid = vapid
        self.message = message
        self.diagnoses = diagnoses
    }
}
