import Crypto

/// Mints provider tokens (ES256 JWTs) the way APNs clients do: header `{"alg":"ES256","kid":…}`,
/// claims `{"iss":…,"iat":…}`, raw r‖s signature. For `mockapns token`, benchmarks and tests;
/// the server itself only verifies.
public struct ProviderTokenSigner: Sendable {
    public let keyID: String
    public let teamID: String
    private let privateKey: P256.Signing.PrivateKey

    /// - Parameter privateKeyPEM: the contents of an `AuthKey_<KEYID>.p8` file.
    public init(keyID: String, teamID: String, privateKeyPEM: String) throws {
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    }

    /// A token issued at `issuedAt` (seconds since 1970).
    public func token(issuedAt: Int64) throws -> String {
        let header = ProviderTokenBase64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = ProviderTokenBase64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#.utf8))
        let signingInput = header + "." + claims
        let signature = try privateKey.signature(for: Array(signingInput.utf8))
        return signingInput + "." + ProviderTokenBase64URL.encode(signature.rawRepresentation)
    }
}
