import Crypto
import Foundation
import MockAPNsCore
import XCTest

private typealias TemporaryDirectory = ProviderTokenFixtures.TemporaryDirectory

/// `keys.json` and key directories: what loads, and how each mistake is reported.
final class ProviderKeyRegistryTests: XCTestCase {
    private static let validEntry = #"{"keyId":"ABCDE12345","teamId":"TEAM123456","environment":"sandbox","scope":"team"}"#

    func testManifestParsesEveryField() throws {
        let manifest = try ProviderKeyManifest(parsing: """
            {"keys":[
              {"keyId":"ABCDE12345","teamId":"TEAM123456","environment":"sandbox","scope":"team"},
              {"keyId":"FGHIJ67890","teamId":"TEAM123456","environment":"both","scope":"team","topics":["com.example.app"]},
              {"keyId":"KLMNO13579","teamId":"TEAM654321","environment":"production","scope":"topic","topics":["com.example.a","com.example.b"]}
            ]}
            """)
        XCTAssertEqual(manifest.entries, [
            .init(keyID: "ABCDE12345", teamID: "TEAM123456", environment: .sandbox, scope: .team, topics: nil, path: "$.keys[0]"),
            .init(keyID: "FGHIJ67890", teamID: "TEAM123456", environment: .both, scope: .team, topics: ["com.example.app"], path: "$.keys[1]"),
            .init(keyID: "KLMNO13579", teamID: "TEAM654321", environment: .production, scope: .topic,
                  topics: ["com.example.a", "com.example.b"], path: "$.keys[2]"),
        ])
        XCTAssertEqual(manifest.entries[0].keyFileName, "AuthKey_ABCDE12345.p8")
    }

    func testManifestErrorsNameTheirJSONPath() {
        let valid = Self.validEntry
        func entry(_ members: String) -> String { "{\"keys\":[\(valid),\(valid.replacingOccurrences(of: "ABCDE12345", with: "FGHIJ67890")),{\(members)}]}" }
        let base = #""keyId":"KLMNO13579","teamId":"TEAM123456","scope":"team""#
        let rows: [(name: String, json: String, path: String, message: String)] = [
            ("wrong environment", entry(base + #","environment":"prod""#), "$.keys[2].environment",
             #"expected "sandbox", "production" or "both", found "prod""#),
            ("environment not a string", entry(base + #","environment":1"#), "$.keys[2].environment",
             #"expected "sandbox", "production" or "both", found a number"#),
            ("missing environment", entry(base), "$.keys[2].environment",
             #"missing required key; expected "sandbox", "production" or "both""#),
            ("wrong scope", entry(#""keyId":"KLMNO13579","teamId":"TEAM123456","environment":"both","scope":"app""#), "$.keys[2].scope",
             #"expected "team" or "topic", found "app""#),
            ("unknown key in an entry", entry(base + #","environment":"both","topic":"com.example.app""#), "$.keys[2].topic",
             #"unknown key "topic"; known keys here: keyId, teamId, environment, scope, topics"#),
            ("lower-case key id", entry(#""keyId":"abcde12345","teamId":"TEAM123456","environment":"both","scope":"team""#), "$.keys[2].keyId",
             #"expected 10 characters from A-Z and 0-9, found "abcde12345""#),
            ("short team id", entry(#""keyId":"KLMNO13579","teamId":"TEAM","environment":"both","scope":"team""#), "$.keys[2].teamId",
             #"expected 10 characters from A-Z and 0-9, found "TEAM""#),
            ("missing key id", entry(#""teamId":"TEAM123456","environment":"both","scope":"team""#), "$.keys[2].keyId",
             "missing required key; expected 10 characters from A-Z and 0-9"),
            ("topic scope without topics", entry(#""keyId":"KLMNO13579","teamId":"TEAM123456","environment":"both","scope":"topic""#), "$.keys[2].topics",
             #"missing required key; expected a non-empty array of bundle ids (required when scope is "topic")"#),
            ("empty topics", entry(base + #","environment":"both","topics":[]"#), "$.keys[2].topics",
             "expected a non-empty array of bundle ids, found an empty array"),
            ("topics not an array", entry(base + #","environment":"both","topics":"com.example.app""#), "$.keys[2].topics",
             "expected a non-empty array of bundle ids, found a string"),
            ("topic not a string", entry(base + #","environment":"both","topics":["com.example.app",7]"#), "$.keys[2].topics[1]",
             "expected a bundle id, found a number"),
            ("empty topic", entry(base + #","environment":"both","topics":[""]"#), "$.keys[2].topics[0]",
             "expected a bundle id, found an empty string"),
            ("duplicate topic", entry(base + #","environment":"both","topics":["a.b","a.b"]"#), "$.keys[2].topics[1]",
             #"duplicate topic "a.b""#),
            ("duplicate key id", #"{"keys":[\#(valid),\#(valid)]}"#, "$.keys[1].keyId",
             #"duplicate key id "ABCDE12345" (also at $.keys[0])"#),
            ("entry not an object", #"{"keys":[\#(valid),"ABCDE12345"]}"#, "$.keys[1]", "expected an object, found a string"),
            ("unknown top-level key", #"{"keys":[],"teams":[]}"#, "$.teams", #"unknown key "teams"; known keys here: keys"#),
            ("keys not an array", #"{"keys":{}}"#, "$.keys", "expected an array, found an object"),
            ("no keys", "{}", "$.keys", "missing required key; expected an array of key entries"),
            ("not an object", "[]", "$", "expected an object, found an array"),
            ("not JSON", #"{"keys":[}"#, "$", "unexpected character '}'; expected a value"),
        ]
        for row in rows {
            do {
                _ = try ProviderKeyManifest(parsing: row.json)
                XCTFail("\(row.name): parsed")
            } catch {
                XCTAssertEqual(error.path, row.path, row.name)
                XCTAssertEqual(error.message, row.message, row.name)
            }
        }
    }

    func testDirectoryLoadsEveryKeyWithItsMetadata() throws {
        let directory = try TemporaryDirectory()
        let teamKey = P256.Signing.PrivateKey(), topicKey = P256.Signing.PrivateKey()
        try directory.write("AuthKey_ABCDE12345.p8", teamKey.pemRepresentation)
        try directory.write("AuthKey_FGHIJ67890.p8", topicKey.pemRepresentation)
        try directory.write("keys.json", """
            {"keys":[\(Self.validEntry),
              {"keyId":"FGHIJ67890","teamId":"TEAM123456","environment":"production","scope":"topic","topics":["com.example.app"]}]}
            """)
        try directory.write("README.md", "Files other than AuthKey_*.p8 are ignored.")

        let registry = try ProviderKeyRegistry(directory: directory.path)
        XCTAssertEqual(registry.keys.map(\.keyID), ["ABCDE12345", "FGHIJ67890"])
        let topic = try XCTUnwrap(registry.key(id: "FGHIJ67890"))
        XCTAssertEqual(topic.teamID, "TEAM123456")
        XCTAssertEqual(topic.environment, .production)
        XCTAssertEqual(topic.scope, .topic)
        XCTAssertEqual(topic.topics, ["com.example.app"])
        XCTAssertEqual(topic.publicKey.rawRepresentation, topicKey.publicKey.rawRepresentation)
        XCTAssertEqual(registry.key(id: "ABCDE12345")?.publicKey.rawRepresentation, teamKey.publicKey.rawRepresentation)
    }

    func testCommittedDevelopmentKeysLoadAndSign() throws {
        // certs-dev/ is generated by `mockapns certs generate`; loader and generator must agree.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("certs-dev").path
        guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("keys.json")) else {
            throw XCTSkip("no certs-dev/keys.json in this checkout")
        }
        let registry = try ProviderKeyRegistry(directory: directory)
        XCTAssertFalse(registry.keys.isEmpty)

        let key = try XCTUnwrap(registry.keys.first { $0.environment.covers(.sandbox) && $0.scope == .team })
        let pem = try String(contentsOfFile: (directory as NSString).appendingPathComponent("AuthKey_\(key.keyID).p8"), encoding: .utf8)
        let signer = try P256.Signing.PrivateKey(pemRepresentation: pem)
        let now: Int64 = 1_800_000_000
        let token = ProviderTokenFixtures.JWT.sign(header: #"{"alg":"ES256","kid":"\#(key.keyID)"}"#,
                                                   claims: #"{"iss":"\#(key.teamID)","iat":\#(now)}"#, with: signer)
        let verifier = ProviderTokenVerifier(registry: registry, clock: ServerClock(fixedAt: now * 1000))
        var state = ProviderTokenConnectionState()
        let topic = key.topics?.sorted().first ?? "com.example.app"
        let outcome = verifier.authenticate(authorization: "bearer " + token, topic: topic,
                                            serverEnvironment: .sandbox, state: &state)
        XCTAssertEqual(outcome.identity?.keyID, key.keyID, "\(outcome)")
    }

    func testDirectoryErrorsNameTheFile() throws {
        let directory = try TemporaryDirectory()

        XCTAssertThrowsError(try ProviderKeyRegistry(directory: directory.path)) { error in
            XCTAssertEqual((error as? ProviderKeyRegistryError)?.file, directory.file("keys.json"))
        }

        try directory.write("keys.json", #"{"keys":[\#(Self.validEntry)]}"#)
        XCTAssertThrowsError(try ProviderKeyRegistry(directory: directory.path)) { error in
            let error = error as? ProviderKeyRegistryError
            XCTAssertEqual(error?.file, directory.file("AuthKey_ABCDE12345.p8"))
            XCTAssertEqual(error?.message, "cannot read the file (missing or unreadable) (named at $.keys[0])")
        }

        try directory.write("AuthKey_ABCDE12345.p8", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        XCTAssertThrowsError(try ProviderKeyRegistry(directory: directory.path)) { error in
            let error = error as? ProviderKeyRegistryError
            XCTAssertEqual(error?.file, directory.file("AuthKey_ABCDE12345.p8"))
            XCTAssertTrue(error?.message.hasPrefix("not a P-256 (ES256) private key in PEM form") ?? false, "\(String(describing: error))")
        }

        try directory.write("AuthKey_ABCDE12345.p8", P256.Signing.PrivateKey().pemRepresentation)
        try directory.write("AuthKey_ZZZZZ99999.p8", P256.Signing.PrivateKey().pemRepresentation)
        XCTAssertThrowsError(try ProviderKeyRegistry(directory: directory.path)) { error in
            let error = error as? ProviderKeyRegistryError
            XCTAssertEqual(error?.file, directory.file("AuthKey_ZZZZZ99999.p8"))
            XCTAssertEqual(error?.message, "no entry in keys.json for this key; add one with its teamId, environment and scope")
        }

        try directory.write("keys.json", #"{"keys":[{"keyId":"ABCDE12345","teamId":"TEAM123456","environment":"prod","scope":"team"}]}"#)
        XCTAssertThrowsError(try ProviderKeyRegistry(directory: directory.path)) { error in
            let error = error as? ProviderKeyRegistryError
            XCTAssertEqual(error?.jsonPath, "$.keys[0].environment")
            XCTAssertEqual(error?.position, SourcePosition(line: 1, column: 68))
            XCTAssertEqual(error?.description, directory.file("keys.json")
                + #": line 1, column 68: $.keys[0].environment: expected "sandbox", "production" or "both", found "prod""#)
        }
    }

    func testKeysRegisteredInCode() throws {
        let signing = P256.Signing.PrivateKey()
        XCTAssertThrowsError(try ProviderKey(keyID: "SHORT", teamID: "TEAM123456", environment: .both, scope: .team,
                                             publicKey: signing.publicKey)) { error in
            XCTAssertEqual(error as? ProviderKeyError,
                           ProviderKeyError(#"keyId must be 10 characters from A-Z and 0-9, found "SHORT""#))
        }
        XCTAssertThrowsError(try ProviderKey(keyID: "ABCDE12345", teamID: "TEAM123456", environment: .both, scope: .topic,
                                             publicKey: signing.publicKey)) { error in
            XCTAssertEqual(error as? ProviderKeyError, ProviderKeyError("a topic-scoped key must list at least one topic"))
        }
        XCTAssertThrowsError(try ProviderKey(keyID: "ABCDE12345", teamID: "TEAM123456", environment: .both, scope: .team,
                                             pemRepresentation: "not PEM"))

        var registry = ProviderKeyRegistry()
        let fromPEM = try ProviderKey(keyID: "ABCDE12345", teamID: "TEAM123456", environment: .sandbox, scope: .team,
                                      pemRepresentation: signing.pemRepresentation)
        registry.register(fromPEM)
        XCTAssertEqual(registry.key(id: "ABCDE12345")?.publicKey.rawRepresentation, signing.publicKey.rawRepresentation)
        XCTAssertEqual(registry.remove(keyID: "ABCDE12345")?.keyID, "ABCDE12345")
        XCTAssertNil(registry.key(id: "ABCDE12345"))

        // A running verifier picks up keys registered later.
        let clock = ServerClock(fixedAt: 1_800_000_000_000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(), clock: clock)
        let authorization = "bearer " + ProviderTokenFixtures.JWT.sign(
            header: #"{"alg":"ES256","kid":"ABCDE12345"}"#, claims: #"{"iss":"TEAM123456","iat":1800000000}"#, with: signing)
        var state = ProviderTokenConnectionState()
        XCTAssertEqual(verifier.authenticate(authorization: authorization, topic: "com.example.app",
                                             serverEnvironment: .sandbox, state: &state).reason, .invalidProviderToken)
        verifier.register(fromPEM)
        XCTAssertEqual(verifier.keys.map(\.keyID), ["ABCDE12345"])
        XCTAssertNotNil(verifier.authenticate(authorization: authorization, topic: "com.example.app",
                                              serverEnvironment: .sandbox, state: &state).identity)
    }
}
