/// The `keys.json` manifest of a key directory: what Apple's portal would say about each
/// `AuthKey_<KEYID>.p8` next to it.
///
/// ```json
/// {"keys":[{"keyId":"ABCDE12345","teamId":"TEAM123456","environment":"sandbox",
///           "scope":"topic","topics":["com.example.app"]}]}
/// ```
///
/// `environment` is `"sandbox"`, `"production"` or `"both"`; `scope` is `"team"` or `"topic"`.
/// `topics` (bundle ids) is required for topic-scoped keys and optional for team-scoped keys,
/// where it lists the team's bundle ids. Unknown keys are errors, reported with their JSON path.
package struct ProviderKeyManifest: Sendable, Equatable {
    /// The manifest's file name inside a key directory.
    package static let fileName = "keys.json"

    /// One key's metadata.
    package struct Entry: Sendable, Equatable {
        package var keyID: String
        package var teamID: String
        package var environment: ProviderKeyEnvironment
        package var scope: ProviderKeyScope
        package var topics: [String]?
        /// Where the entry sits in the file (`$.keys[2]`), for later error messages.
        package var path: String

        package init(keyID: String, teamID: String, environment: ProviderKeyEnvironment,
                    scope: ProviderKeyScope, topics: [String]?, path: String) {
            self.keyID = keyID
            self.teamID = teamID
            self.environment = environment
            self.scope = scope
            self.topics = topics
            self.path = path
        }

        /// The `.p8` file that holds this entry's key.
        package var keyFileName: String { "AuthKey_\(keyID).p8" }
    }

    package var entries: [Entry]

    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses and checks manifest text. Every error names the JSON path of the mistake and what
    /// was expected there.
    package init(parsing text: String) throws(JSONFileError) {
        var root = try JSONObjectReader(try JSONParser.parse(text))
        guard let elements = try root.array("keys") else {
            throw root.missing("keys", expected: "an array of key entries")
        }
        try root.finish(allowed: ["keys"])

        var entries: [Entry] = []
        var firstPathOfKeyID: [String: String] = [:]
        for (path, node) in elements {
            let entry = try Self.entry(node, path: path)
            if let earlier = firstPathOfKeyID[entry.keyID] {
                throw JSONFileError(path: "\(path).keyId", position: node.position,
                                    message: "duplicate key id \"\(entry.keyID)\" (also at \(earlier))")
            }
            firstPathOfKeyID[entry.keyID] = path
            entries.append(entry)
        }
        self.entries = entries
    }

    private static let entryKeys = ["keyId", "teamId", "environment", "scope", "topics"]

    private static func entry(_ node: JSONNode, path: String) throws(JSONFileError) -> Entry {
        var reader = try JSONObjectReader(node, path: path)
        let keyID = try identifier(&reader, "keyId")
        let teamID = try identifier(&reader, "teamId")
        let environment = try choice(&reader, "environment", ProviderKeyEnvironment.self)
        let scope = try choice(&reader, "scope", ProviderKeyScope.self)
        let topics = try self.topics(&reader, scope: scope)
        try reader.finish(allowed: entryKeys)
        return Entry(keyID: keyID, teamID: teamID, environment: environment, scope: scope,
                     topics: topics, path: path)
    }

    private static func identifier(_ reader: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> String {
        let expected = "10 characters from A-Z and 0-9"
        guard let node = reader.node(key) else { throw reader.missing(key, expected: expected) }
        guard case .string(let value) = node.value else {
            throw reader.invalid(key, node, "expected \(expected), found \(node.value.kindDescription)")
        }
        guard ProviderKey.identifierProblem(value) == nil else {
            throw reader.invalid(key, node, "expected \(expected), found \"\(value)\"")
        }
        return value
    }

    /// Reads an enum-valued member; the message lists the choices as prose
    /// (`expected "sandbox", "production" or "both", found "prod"`).
    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ reader: inout JSONObjectReader, _ key: String, _ type: Choice.Type
    ) throws(JSONFileError) -> Choice where Choice.RawValue == String {
        let quoted = Choice.allCases.map { "\"\($0.rawValue)\"" }
        let expected = quoted.count > 1
            ? quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
            : quoted.joined()
        guard let node = reader.node(key) else { throw reader.missing(key, expected: expected) }
        guard case .string(let text) = node.value else {
            throw reader.invalid(key, node, "expected \(expected), found \(node.value.kindDescription)")
        }
        guard let value = Choice(rawValue: text) else {
            throw reader.invalid(key, node, "expected \(expected), found \"\(text)\"")
        }
        return value
    }

    private static func topics(_ reader: inout JSONObjectReader, scope: ProviderKeyScope) throws(JSONFileError) -> [String]? {
        let expected = "a non-empty array of bundle ids"
        guard let node = reader.node("topics") else {
            if scope == .topic {
                throw reader.missing("topics", expected: "\(expected) (required when scope is \"topic\")")
            }
            return nil
        }
        guard case .array(let elements) = node.value else {
            throw reader.invalid("topics", node, "expected \(expected), found \(node.value.kindDescription)")
        }
        guard !elements.isEmpty else {
            throw reader.invalid("topics", node, "expected \(expected), found an empty array")
        }
        var topics: [String] = []
        for (index, element) in elements.enumerated() {
            let path = "\(reader.path(of: "topics"))[\(index)]"
            guard case .string(let topic) = element.value, !topic.isEmpty else {
                let found = element.value == .string("") ? "an empty string" : element.value.kindDescription
                throw JSONFileError(path: path, position: element.position,
                                    message: "expected a bundle id, found \(found)")
            }
            guard !topics.contains(topic) else {
                throw JSONFileError(path: path, position: element.position,
                                    message: "duplicate topic \"\(topic)\"")
            }
            topics.append(topic)
        }
        return topics
    }
}
