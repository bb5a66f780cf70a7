/// The result of authenticating one request with a provider token.
package enum ProviderTokenOutcome: Sendable, Equatable {
    /// The token is valid for this request.
    case authenticated(ProviderTokenIdentity)
    /// APNs would refuse the request with `rejection.reason`.
    case rejected(ProviderTokenRejection)

    /// The reason, if rejected.
    package var reason: Reason? {
        if case .rejected(let rejection) = self { return rejection.reason }
        return nil
    }

    /// The identity, if authenticated.
    package var identity: ProviderTokenIdentity? {
        if case .authenticated(let identity) = self { return identity }
        return nil
    }

    /// The outcome as the push decider takes it.
    package var authenticationResult: AuthenticationResult {
        switch self {
        case .authenticated(let identity):
            return .providerToken(teamID: identity.teamID, keyID: identity.keyID, allowedTopics: identity.allowedTopics)
        case .rejected(let rejection):
            return .rejected(rejection.reason)
        }
    }
}

/// Who signed an accepted token.
package struct ProviderTokenIdentity: Sendable, Hashable {
    /// The `iss` claim, which is the key's team.
    package var teamID: String
    /// The header's `kid`.
    package var keyID: String
    /// The `iat` claim, in whole seconds since 1970.
    package var issuedAt: Int64
    /// The bundle ids the token may push to on this connection (each also with its push-type
    /// suffixes); `nil` for any topic of the team.
    package var allowedTopics: Set<String>?
    /// Leniencies the token relied on, for the journal ("iat sent as a string").
    package var notes: [ProviderTokenNote]
    /// `true` when the connection had already verified this exact token, so no parsing and no
    /// signature check happened for this request.
    package var servedFromCache: Bool

    package init(teamID: String, keyID: String, issuedAt: Int64, allowedTopics: Set<String>? = nil,
                notes: [ProviderTokenNote] = [], servedFromCache: Bool = false) {
        self.teamID = teamID
        self.keyID = keyID
        self.issuedAt = issuedAt
        self.allowedTopics = allowedTopics
        self.notes = notes
        self.servedFromCache = servedFromCache
    }
}

/// Something a token does that APNs appears to tolerate although it departs from the JWT
/// shape Apple documents. Accepted, but worth telling the provider's developer about.
package enum ProviderTokenNote: Sendable, Hashable, CustomStringConvertible {
    /// `iat` was a JSON string holding a number (APNSwift has long done this).
    case issuedAtSentAsString
    /// `iat` had a fractional part; it counts as its whole seconds.
    case issuedAtHasFraction
    /// The signature was DER (`SEQUENCE { r, s }`), not JOSE's 64-byte `r‖s`.
    case signatureInDERForm
    /// Header fields other than `alg`, `kid` and `typ`.
    case additionalHeaderFields([String])
    /// Claims other than `iss` and `iat`.
    case additionalClaims([String])

    package var description: String {
        switch self {
        case .issuedAtSentAsString: return "iat sent as a string"
        case .issuedAtHasFraction: return "iat has a fractional part"
        case .signatureInDERForm: return "signature in DER form rather than raw r||s"
        case .additionalHeaderFields(let names): return "additional header fields: \(names.joined(separator: ", "))"
        case .additionalClaims(let names): return "additional claims: \(names.joined(separator: ", "))"
        }
    }
}

/// Why a token was refused: the reason APNs sends, and a detail for logs and the journal
/// (never sent to the client, because APNs sends only the reason).
package struct ProviderTokenRejection: Error, Sendable, Hashable, CustomStringConvertible {
    package var reason: Reason
    package var detail: String

    package init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    package var description: String { "\(reason.rawValue): \(detail)" }
}
