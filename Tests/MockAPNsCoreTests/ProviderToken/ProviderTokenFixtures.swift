import Crypto
import Foundation
import MockAPNsTestSupport
import MockAPNsCore

/// Helpers shared by the provider-token tests, under one name so they never collide with
/// other test files in this target.
enum ProviderTokenFixtures {
    /// A signing key as a provider holds it, with the metadata the mock registers for it.
    struct SigningKey {
        let privateKey = P256.Signing.PrivateKey()
        let keyID: String
        let teamID: String
        let environment: ProviderKeyEnvironment
        let scope: ProviderKeyScope
        let topics: Set<String>?

        init(_ keyID: String, team teamID: String, _ environment: ProviderKeyEnvironment = .both,
             _ scope: ProviderKeyScope = .team, topics: Set<String>? = nil) {
            self.keyID = keyID
            self.teamID = teamID
            self.environment = environment
            self.scope = scope
            self.topics = topics
        }

        /// The registered (public) side.
        func providerKey() throws -> ProviderKey {
            try ProviderKey(keyID: keyID, teamID: teamID, environment: environment, scope: scope,
                            topics: topics, publicKey: privateKey.publicKey)
        }

        /// A well-formed provider token, as APNs documents it.
        func token(iat: Int64, signature: SignatureForm = .raw) -> String {
            JWT.sign(header: #"{"alg":"ES256","kid":"\#(keyID)"}"#,
                     claims: #"{"iss":"\#(teamID)","iat":\#(iat)}"#,
                     with: privateKey, signature)
        }

        /// `bearer <token>`.
        func authorization(iat: Int64, signature: SignatureForm = .raw) -> String {
            "bearer " + token(iat: iat, signature: signature)
        }
    }

    enum SignatureForm {
        /// JOSE's 64-byte r‖s.
        case raw
        /// ASN.1 DER `SEQUENCE { r, s }`.
        case der
    }

    /// Builds JWTs by hand so tests control every byte (a string `iat`, a wrong `alg`, ...).
    enum JWT {
        static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
            Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        static func base64URL(_ text: String) -> String { base64URL(Array(text.utf8)) }

        static func base64URLDecoded(_ text: Substring) -> [UInt8] {
            var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
            return Data(base64Encoded: standard).map(Array.init) ?? []
        }

        static func signingInput(header: String, claims: String) -> String {
            base64URL(header) + "." + base64URL(claims)
        }

        static func sign(header: String, claims: String, with key: P256.Signing.PrivateKey,
                         _ form: SignatureForm = .raw) -> String {
            let input = signingInput(header: header, claims: claims)
            // Signing with a freshly generated key and well-formed input does not fail; an empty
            // signature would make the test fail loudly anyway.
            guard let signature = try? key.signature(for: Array(input.utf8)) else { return input + "." }
            switch form {
            case .raw: return input + "." + base64URL(signature.rawRepresentation)
            case .der: return input + "." + base64URL(signature.derRepresentation)
            }
        }
    }

    /// Runs a command-line tool, for signing with implementations independent of swift-crypto.
    struct ToolRun {
        var status: Int32
        var standardOutput: String
        var standardError: String

        /// Runs `arguments[0]` found on PATH. `nil` if the tool is not installed.
        static func run(_ arguments: [String], input: Data? = nil) throws -> ToolRun? {
            guard let tool = arguments.first, (try? ProcessRunner.locate(tool)) != nil else { return nil }
            let result = try ProcessRunner.run(tool, Array(arguments.dropFirst()), input: input)
            return ToolRun(status: result.status, standardOutput: result.stdout, standardError: result.stderr)
        }
    }

    /// A temporary directory removed when the value is released by the test.
    final class TemporaryDirectory {
        let path: String

        init() throws {
            path = NSTemporaryDirectory() + "/provider-token-tests-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: file(name), atomically: true, encoding: .utf8)
        }

        func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

        deinit {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
