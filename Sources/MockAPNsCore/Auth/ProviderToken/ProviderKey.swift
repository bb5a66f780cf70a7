import Crypto

/// One APNs authentication key (the `.p8` a developer downloads from Apple) as the mock knows
/// it: the public half that verifies provider tokens, and what Apple's portal says the key may
/// do: which team owns it, which environments it serves, and which topics it covers.
package struct ProviderKey: Sendable {
    /// The 10-character Key ID, sent as the token header's `kid`.
    package let keyID: String
    /// The 10-character Team ID, which the token's `iss` claim must name.
    package let teamID: String
    /// The environments the key serves.
    package let environment: ProviderKeyEnvironment
    /// Whether the key covers the whole team or only listed topics.
    package let scope: ProviderKeyScope
    /// Bundle ids the key may push to. Required for topic-scoped keys; for team-scoped keys an
    /// optional list of the team's bundle ids (`nil`: any topic).
    package let topics: Set<String>?
    /// Verifies the ES256 signatures of tokens that name this key.
    package let publicKey: P256.Signing.PublicKey

    /// A key with its metadata. Throws if an identifier is not 10 ASCII upper-case letters or
    /// digits (as Apple issues them), or if a topic-scoped key lists no topics.
    package init(
        keyID: String,
        teamID: String,
        environment: ProviderKeyEnvironment,
        scope: ProviderKeyScope,
        topics: Set<String>? = nil,
        publicKey: P256.Signing.PublicKey
    ) throws(ProviderKeyError) {
        if let problem = Self.identifierProblem(keyID) {
            throw ProviderKeyError("keyId \(problem)")
        }
        if let problem = Self.identifierProblem(teamID) {
            throw ProviderKeyError("teamId \(problem)")
        }
        if scope == .topic && (topics ?? []).isEmpty {
            throw ProviderKeyError("a topic-scoped key must list at least one topic")
        }
        if let topics, topics.contains(where: \.isEmpty) {
            throw ProviderKeyError("topics must not be empty strings")
        }
        self.keyID = keyID
        self.teamID = teamID
        self.environment = environment
        self.scope = scope
        self.topics = topics
        self.publicKey = publicKey
    }

    /// A key from PEM text: either the PKCS#8 private key of an `AuthKey_<KEYID>.p8` file
    /// (only its public half is kept) or a `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    package init(
        keyID: String,
        teamID: String,
        environment: ProviderKeyEnvironment,
        scope: ProviderKeyScope,
        topics: Set<String>? = nil,
        pemRepresentation pem: String
    ) throws(ProviderKeyError) {
        try self.init(keyID: keyID, teamID: teamID, environment: environment, scope: scope,
                      topics: topics, publicKey: try Self.publicKey(fromPEM: pem))
    }

    /// Whether a push to `bundleID` is within this key's topics.
    package func covers(bundleID: String) -> Bool {
        topics?.contains(bundleID) ?? true
    }

    /// The public key in a PEM block, as a `.p8` file or a `PUBLIC KEY` block carries it.
    static func publicKey(fromPEM pem: String) throws(ProviderKeyError) -> P256.Signing.PublicKey {
        if pem.contains("PUBLIC KEY-----") {
            do {
                return try P256.Signing.PublicKey(pemRepresentation: pem)
            } catch {
                throw ProviderKeyError("not a P-256 public key in PEM form (\(error))")
            }
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey
        } catch {
            throw ProviderKeyError("not a P-256 (ES256) private key in PEM form (\(error))")
        }
    }

    /// Apple's Key IDs and Team IDs are 10 characters from A–Z and 0–9. Holding registered keys
    /// to that catches copy-paste slips (a trailing newline, a file name) at load time instead
    /// of as a puzzling InvalidProviderToken later.
    static func identifierProblem(_ identifier: String) -> String? {
        let valid = identifier.utf8.count == 10
            && identifier.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
        return valid ? nil : "must be 10 characters from A-Z and 0-9, found \"\(identifier)\""
    }
}

/// Which APNs environments a key serves. Team-scoped keys made since 2025 serve one; older
/// keys serve both.
package enum ProviderKeyEnvironment: String, CaseIterable, Sendable, Hashable, Codable {
    case sandbox
    case production
    case both

    /// Whether a server of `environment` accepts tokens signed with this key.
    package func covers(_ environment: APNsEnvironment) -> Bool {
        switch self {
        case .both: return true
        case .sandbox: return environment == .sandbox
        case .production: return environment == .production
        }
    }
}

/// The reach of a key, as Apple's developer portal offers it.
package enum ProviderKeyScope: String, CaseIterable, Sendable, Hashable, Codable {
    /// Any topic of the team.
    case team
    /// Only the topics listed with the key.
    case topic
}

/// A key or its metadata is unusable.
package struct ProviderKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
