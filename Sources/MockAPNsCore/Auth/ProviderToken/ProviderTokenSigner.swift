import Crypto

/// Mints provider tokens (ES256 JWTs) the way APNs clients do: header `{"alg":"ES256","kid":…}`,
/// claims `{"iss":…,"iat":…}`, raw r‖s signature. For `mockapns token`, benchmarks and tests;
/// the server itself only verifies.
package struct ProviderTokenSigner: Sendable {
    package let keyID: String
    package let teamID: String
    private let privateKey: P256.Signing.PrivateKey

    /// - Parameter privateKeyPEM: the contents of an `AuthKey_<KEYID>.p8` file.
    package init(keyID: String, teamID: String, privateKeyPEM: String) throws {
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    }

    /// A token issued at `issuedAt` (seconds since 1970). `headerJSON` replaces the header
    /// the signer writes, for tests of headers spelt as other libraries spell them
    /// (`{ "alg": "ES256", … }` encodes to `eyAi…`, not `eyJ…`).
    package func token(issuedAt: Int64, headerJSON: String? = nil) throws -> String {
        var header = JSONWriter()
        header.beginObject()
        header.string("alg", "ES256")
        header.string("kid", keyID)
        header.endObject()
        let headerBytes = headerJSON.map { Array($0.utf8) } ?? header.bytes
        var claims = JSONWriter()
        claims.beginObject()
        claims.string("iss", teamID)
        claims.integer("iat", issuedAt)
        claims.endObject()
        let signingInput = Base64URL.encode(headerBytes) + "." + Base64URL.encode(claims.bytes)
        let signature = try privateKey.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
