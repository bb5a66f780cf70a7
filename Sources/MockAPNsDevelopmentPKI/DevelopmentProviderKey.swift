import Crypto
import MockAPNsCore

/// An ES256 provider-token signing key as Apple issues it: a PKCS#8 `AuthKey_<KEYID>.p8`,
/// described by one entry of `keys.json`.
package struct DevelopmentProviderKey: Sendable {
    /// The environments a key is valid in. Older team keys work in both.
    package enum Environment: String, Sendable, Hashable, CaseIterable {
        case sandbox, production, both
    }

    /// What a key may push to: any topic of its team, or only the listed topics.
    package enum Scope: String, Sendable, Hashable, CaseIterable {
        case team, topic
    }

    /// The 10-character key id (the JWT header's `kid`).
    package var keyID: String
    /// The 10-character team id (the JWT claims' `iss`).
    package var teamID: String
    package var environment: Environment
    package var scope: Scope
    /// The team's bundle ids (optional for team keys) or the key's topics (topic keys).
    package var topics: [String]?
    /// One line on what the key is for, for the README.
    package var purpose: String
    package var privateKey: P256.Signing.PrivateKey

    package init(
        keyID: String,
        teamID: String,
        environment: Environment,
        scope: Scope,
        topics: [String]?,
        purpose: String,
        privateKey: P256.Signing.PrivateKey
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.environment = environment
        self.scope = scope
        self.topics = topics
        self.purpose = purpose
        self.privateKey = privateKey
    }

    /// `AuthKey_<KEYID>.p8`, Apple's file name for a downloaded key.
    package var fileName: String { "AuthKey_\(keyID).p8" }

    /// The PKCS#8 PEM text of the `.p8` file.
    package var p8PEM: String { privateKey.pemRepresentation + "\n" }
}

/// `keys.json`: the manifest the server's key registry reads.
///
/// Format: `{"keys":[{"keyId":"…","teamId":"…","environment":"sandbox|production|both",
/// "scope":"team|topic","topics":["…"]}]}`. Written by hand rather than with `JSONEncoder` so
/// the keys keep this order and the file reads well in review.
package enum DevelopmentKeyManifest {
    package static let fileName = "keys.json"

    package static func json(for keys: [DevelopmentProviderKey]) -> String {
        let entries = keys.map { key in
            var fields = [
                "\"keyId\": \(JSONWriter.quoted(key.keyID))",
                "\"teamId\": \(JSONWriter.quoted(key.teamID))",
                "\"environment\": \(JSONWriter.quoted(key.environment.rawValue))",
                "\"scope\": \(JSONWriter.quoted(key.scope.rawValue))",
            ]
            if let topics = key.topics {
                fields.append("\"topics\": [\(topics.map(JSONWriter.quoted).joined(separator: ", "))]")
            }
            return "    {\n      " + fields.joined(separator: ",\n      ") + "\n    }"
        }
        return "{\n  \"keys\": [\n" + entries.joined(separator: ",\n") + "\n  ]\n}\n"
    }
}
