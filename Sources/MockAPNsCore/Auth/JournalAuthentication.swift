/// How a notification authenticated, as far as the journal tells it.
@usableFromInline package struct JournalAuthentication: Sendable, Equatable {
    /// `certificate`, `providerToken`, `none` (authentication off), `missing`, or `rejected`.
    package var kind: String
    package var teamID: String?
    package var keyID: String?
    /// The reason the credentials were refused.
    package var refusal: Reason?
    /// The `iat` of the provider token that authenticated the request, in seconds since 1970:
    /// which token a provider used, so a token renewed too often can be told across
    /// connections. Not a secret: the token cannot be rebuilt from it.
    package var issuedAt: Int64?
    /// Why the credentials were refused, in plain words: the provider token's cause (an
    /// unknown key id, a bad signature, `iss` not the key's team, `iat` in the future, ...) or
    /// why a client certificate is not trusted. Apple sends only the reason; this is for the
    /// provider's developer. Never holds a token's signature or any key.
    package var detail: String?
    /// The session the credentials belong to (`MockAPNsSession.id`); `nil` for the server's
    /// own credentials, the default session.
    package var session: String?

    package init(
        kind: String, teamID: String? = nil, keyID: String? = nil, refusal: Reason? = nil, issuedAt: Int64? = nil,
        detail: String? = nil, session: String? = nil
    ) {
        self.kind = kind
        self.teamID = teamID
        self.keyID = keyID
        self.refusal = refusal
        self.issuedAt = issuedAt
        self.detail = detail
        self.session = session
    }

    /// The longest `detail` kept, in UTF-8 bytes: a cause quotes what the client sent (a key
    /// id, an issuer), which a hostile client may make as long as a header allows.
    package static let maximumDetailBytes = 300

    /// `text` cut to `maximumDetailBytes` at a character boundary, marked with "…" when cut.
    package static func boundedDetail(_ text: String) -> String {
        guard text.utf8.count > maximumDetailBytes else { return text }
        var kept = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= maximumDetailBytes - 3 else { break }
            kept.append(character)
            bytes += size
        }
        return kept + "…"
    }

    /// What the journal says about `result`.
    package init(_ result: AuthenticationResult) {
        switch result {
        case .notRequired: self.init(kind: "none")
        case .unauthenticated: self.init(kind: "missing")
        case .certificate: self.init(kind: "certificate")
        case .providerToken(let team, let key, _): self.init(kind: "providerToken", teamID: team, keyID: key)
        case .rejected(let reason): self.init(kind: "rejected", refusal: reason)
        }
    }
}
