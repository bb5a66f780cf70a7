/// What the connection's credentials allow, as the authentication layer concluded for one
/// request. The decision core applies it; producing it (verifying a provider token, reading
/// a client certificate) is the authentication layer's job.
package enum AuthenticationResult: Sendable, Equatable {
    /// The server runs without authentication: any topic, and `apns-topic` is optional.
    case notRequired

    /// Neither a client certificate nor an `authorization` header: `MissingProviderToken`.
    case unauthenticated

    /// A TLS client certificate.
    /// - topics: the topics it lists (Apple's OID …6.3.6), usually the bundle id and its
    ///   suffixed variants; may be empty for an old single-topic certificate.
    /// - defaultTopic: the subject's UID, used when the request names no topic and the
    ///   certificate lists at most one topic, and for every legacy notification. `nil` when
    ///   the certificate has none: such requests then get `MissingTopic`.
    /// - environments: where it may be used; elsewhere `BadCertificateEnvironment`.
    case certificate(topics: Set<String>, defaultTopic: String?, environments: Set<APNsEnvironment>)

    /// A verified provider token (JWT).
    /// - allowedTopics: for a topic-specific key, its topics; `nil` for a team-scoped key
    ///   (any topic). A listed bundle id also allows its suffixed topics (`.voip`, ...).
    case providerToken(teamID: String, keyID: String, allowedTopics: Set<String>?)

    /// The credentials were refused with this reason (for example `InvalidProviderToken`,
    /// `ExpiredProviderToken`, `BadCertificate`).
    case rejected(Reason)
}

extension AuthenticationResult {
    /// The result for a connection whose client certificate is `identity`: its topics, its
    /// environments, and its subject `UID` (else its only topic) as the default topic.
    /// Whether the certificate is trusted and within its validity period is for the TLS layer
    /// to have checked.
    package static func certificate(_ identity: CertificateIdentity) -> AuthenticationResult {
        .certificate(
            topics: Set(identity.topics),
            defaultTopic: identity.uid ?? identity.defaultTopic,
            environments: identity.environments
        )
    }
}
