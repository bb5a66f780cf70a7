/// What a push to an expired or revoked subscription is answered with.
package enum WebPushGoneAnswer: String, Sendable, Equatable, CaseIterable {
    /// 410 Unregistered, as RFC 8030 §6.2 suggests for a subscription that is gone (the default).
    case unregistered
    /// 201, as field reports say Apple keeps answering after a permission is removed
    /// (WebKit bug 249766); the push is diagnosed as reaching no one.
    case accepted
}

/// The web push endpoint's choices where Apple documents nothing.
package struct WebPushOptions: Sendable, Equatable {
    /// RFC 8030 §7.2 guarantees 4096 bytes of body; larger is 413 PayloadTooLarge.
    package var maximumPayloadBytes = 4096
    /// Apple: `exp` no more than one day ahead.
    package var maximumExpirationSeconds: Int64 = 86_400
    package var goneAnswer: WebPushGoneAnswer = .unregistered
    /// RFC 8030 §5.2: a request without TTL gets 400.
    package var requiresTTL = true
    /// Apple cannot read the body, so by default it is accepted (201) and diagnosed; `true`
    /// answers 400 BadRequestPayload instead.
    package var rejectsUndecryptable = false

    package init() {}
}
