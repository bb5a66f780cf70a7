/// What a VAPID Authorization carried, for the record: the claims as sent (never the
/// signature). A field is `nil` when it was absent or of another JSON kind.
package struct VAPIDClaims: Sendable, Equatable {
    /// `sub`: the contact (`mailto:` or `https:`).
    package var subject: String?
    /// `aud`: the push service's origin.
    package var audience: String?
    /// `exp`: seconds since 1970 (a fraction dropped).
    package var expiration: Int64?
    /// The `k=` value as sent (base64url of the public key).
    package var key: String?

    package init(subject: String? = nil, audience: String? = nil, expiration: Int64? = nil, key: String? = nil) {
        self.subject = subject
        self.audience = audience
        self.expiration = expiration
        self.key = key
    }
}
