import Crypto
import Foundation
import MockAPNsCore
import XCTest

private typealias SigningKey = ProviderTokenFixtures.SigningKey
private typealias JWT = ProviderTokenFixtures.JWT
private typealias ToolRun = ProviderTokenFixtures.ToolRun
private typealias TemporaryDirectory = ProviderTokenFixtures.TemporaryDirectory

/// Tokens from different signers are accepted: swift-crypto in both signature encodings, and
/// two implementations that share no code with it (Python `cryptography`, the `openssl` CLI).
final class ProviderTokenSignerTests: XCTestCase {
    private static let now: Int64 = 1_800_000_000

    private func authenticate(_ authorization: String, keys: [ProviderKey]) -> ProviderTokenOutcome {
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: keys),
                                             clock: ServerClock(fixedAt: Self.now * 1000))
        var state = ProviderTokenConnectionState()
        return verifier.authenticate(authorization: authorization, topic: "com.example.app",
                                     serverEnvironment: .sandbox, state: &state)
    }

    func testSwiftCryptoRawSignature() throws {
        let key = SigningKey("ABCDE12345", team: "TEAM123456")
        let token = key.token(iat: Self.now)
        XCTAssertEqual(Array(JWT.base64URLDecoded(token.split(separator: ".")[2])).count, 64)
        let outcome = authenticate("bearer " + token, keys: [try key.providerKey()])
        XCTAssertEqual(outcome.identity?.notes, [])
    }

    func testSwiftCryptoDERSignatureOfTheSameClaims() throws {
        let key = SigningKey("ABCDE12345", team: "TEAM123456")
        let token = key.token(iat: Self.now, signature: .der)
        XCTAssertEqual(JWT.base64URLDecoded(token.split(separator: ".")[2]).first, 0x30, "DER SEQUENCE")
        let outcome = authenticate("bearer " + token, keys: [try key.providerKey()])
        XCTAssertEqual(outcome.identity?.notes, [.signatureInDERForm])
        XCTAssertEqual(outcome.identity?.teamID, "TEAM123456")
    }

    /// Python's `cryptography` mints the whole token itself (JSON, base64url, raw r‖s) from a
    /// key file the test writes.
    func testPythonCryptographySignedToken() throws {
        let directory = try TemporaryDirectory()
        let key = P256.Signing.PrivateKey()
        try directory.write("AuthKey_PYTHON1234.p8", key.pemRepresentation)
        let script = """
        import base64, json, sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, utils
        def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
        header = b64(json.dumps({"alg": "ES256", "kid": "PYTHON1234"}).encode())
        claims = b64(json.dumps({"iss": "TEAM123456", "iat": int(sys.argv[2])}).encode())
        der = key.sign((header + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
        r, s = utils.decode_dss_signature(der)
        print(header + "." + claims + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
        """
        guard let run = try ToolRun.run(["python3", "-c", script, directory.file("AuthKey_PYTHON1234.p8"), "\(Self.now)"]) else {
            throw XCTSkip("python3 is not installed")
        }
        if run.status != 0 && run.standardError.contains("No module named 'cryptography'") {
            throw XCTSkip("Python's cryptography package is not installed")
        }
        XCTAssertEqual(run.status, 0, run.standardError)
        let token = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        let registered = try ProviderKey(keyID: "PYTHON1234", teamID: "TEAM123456", environment: .both, scope: .team,
                                         pemRepresentation: key.publicKey.pemRepresentation)
        let outcome = authenticate("bearer " + token, keys: [registered])
        XCTAssertEqual(outcome.identity?.keyID, "PYTHON1234", "\(outcome)")
        XCTAssertEqual(outcome.identity?.notes, [])
    }

    /// The `openssl` CLI makes the key (an Apple-style PKCS#8 `.p8`) and signs with
    /// `dgst -sha256 -sign`, which writes DER. The key reaches the verifier through a key
    /// directory, as certs-dev/ provides them.
    func testOpenSSLSignedTokenFromAKeyDirectory() throws {
        let directory = try TemporaryDirectory()
        let keyFile = directory.file("AuthKey_OPENSSL123.p8")
        guard let generate = try ToolRun.run(["openssl", "genpkey", "-algorithm", "EC",
                                              "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyFile]) else {
            throw XCTSkip("openssl is not installed")
        }
        XCTAssertEqual(generate.status, 0, generate.standardError)
        try directory.write("keys.json", """
            {"keys":[{"keyId":"OPENSSL123","teamId":"TEAM123456","environment":"sandbox","scope":"topic","topics":["com.example.app"]}]}
            """)

        let input = JWT.signingInput(header: #"{"alg":"ES256","kid":"OPENSSL123","typ":"JWT"}"#,
                                     claims: #"{"iss":"TEAM123456","iat":\#(Self.now)}"#)
        let signatureFile = directory.file("signature.der")
        let sign = try ToolRun.run(["openssl", "dgst", "-sha256", "-sign", keyFile, "-out", signatureFile],
                                   input: Data(input.utf8))
        XCTAssertEqual(sign?.status, 0, sign?.standardError ?? "")
        let signature = try Data(contentsOf: URL(fileURLWithPath: signatureFile))

        let registry = try ProviderKeyRegistry(directory: directory.path)
        let verifier = ProviderTokenVerifier(registry: registry, clock: ServerClock(fixedAt: Self.now * 1000))
        var state = ProviderTokenConnectionState()
        let outcome = verifier.authenticate(authorization: "bearer \(input).\(JWT.base64URL(signature))",
                                            topic: "com.example.app.voip", serverEnvironment: .sandbox, state: &state)
        XCTAssertEqual(outcome.identity?.keyID, "OPENSSL123", "\(outcome)")
        XCTAssertEqual(outcome.identity?.notes, [.signatureInDERForm])
    }
}
