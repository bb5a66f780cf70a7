import MockAPNsCore
/// What `mockapns certs generate` varies: the app the client certificates are for and the
/// team that owns it. Everything else in the development set is fixed so that tests and
/// documentation can name it.
package struct DevelopmentCertificateOptions: Sendable, Hashable {
    /// The id of the first team, which owns the app and the client certificates.
    package static let defaultTeamID = "TEAM00000A"
    /// The id of the second team, whose key must not push to the first team's topics.
    package static let otherTeamID = "TEAM00000B"
    /// The bundle id of the second team's app.
    package static let otherTeamBundleID = "com.example.other"

    /// The base topic: the client certificates' `UID` and the app of the topic-specific key.
    package var bundleID: String
    /// More topics for the universal certificate's topic list, after the app's own
    /// `bundleID`, `bundleID.voip` and `bundleID.complication`.
    package var extraTopics: [String]
    /// The first team's id (the certificates' `OU` and the `teamId` of its keys).
    package var teamID: String

    package init(
        bundleID: String = "com.example.app",
        extraTopics: [String] = [],
        teamID: String = Self.defaultTeamID
    ) {
        self.bundleID = bundleID
        self.extraTopics = extraTopics
        self.teamID = teamID
    }

    /// Checks the values before anything is generated, so that a typo never ends up inside a
    /// certificate.
    package func validate() throws(DevelopmentCertificateError) {
        for topic in [bundleID] + extraTopics where !Self.isTopic(topic) {
            throw .invalidTopic(topic)
        }
        guard Self.isAppleIdentifier(teamID) else { throw .invalidTeamID(teamID) }
        guard teamID != Self.otherTeamID else { throw .teamIDReserved(teamID) }
    }

    /// Apple's team and key ids: ten characters, uppercase letters and digits.
    static func isAppleIdentifier(_ value: String) -> Bool {
        value.utf8.count == 10 && value.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// Bundle ids and topics: letters, digits, `.`, `-` and `_`, not empty, no leading dot.
    static func isTopic(_ value: String) -> Bool {
        guard let first = value.utf8.first, first != UInt8(ascii: ".") else { return false }
        return value.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

/// Why the development set could not be generated.
package enum DevelopmentCertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidTopic(String)
    case invalidTeamID(String)
    case teamIDReserved(String)
    /// swift-certificates or swift-crypto refused to build or encode something.
    case encodingFailed(String)

    package var description: String {
        switch self {
        case .invalidTopic(let topic):
            return "'\(topic)' is not a bundle id or topic (letters, digits, '.', '-', '_')"
        case .invalidTeamID(let team):
            return "'\(team)' is not a team id (10 uppercase letters or digits)"
        case .teamIDReserved(let team):
            return "'\(team)' is the second team's id in the development set; choose another"
        case .encodingFailed(let reason):
            return "could not build the development certificates: \(reason)"
        }
    }
}

/// The key algorithm of a development set's certificates.
package enum DevelopmentKeyType: String, CaseIterable, Sendable, Hashable {
    /// ECDSA P-256: small and fast; every modern TLS client takes it.
    case ecdsa
    /// RSA 2048, as Apple issues push certificates; what clients limited to RSA need.
    case rsa
}
