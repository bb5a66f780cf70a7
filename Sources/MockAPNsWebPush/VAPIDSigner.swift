import Crypto
import MockAPNsCore

/// Writes VAPID Authorization headers (RFC 8292 §3) as web-push libraries do: for tests and
/// for Swift senders. The mock itself only verifies.
package enum VAPIDSigner {
    /// `vapid t=<jwt>, k=<base64url public key>`; the JWT's header is
    /// `{"typ":"JWT","alg":"ES256"}`, its claims `aud`, `exp` and (when given) `sub`.
    ///
    /// Signing does not fail in practice; if BoringSSL ever refused, the JWT would carry an
    /// empty signature, which every verifier (this one too) refuses.
    package static func authorization(key: P256.Signing.PrivateKey, audience: String, subject: String?, expiration: Int64) -> String {
        var header = JSONWriter()
        header.beginObject()
        header.string("typ", "JWT")
        header.string("alg", "ES256")
        header.endObject()
        var claims = JSONWriter()
        claims.beginObject()
        claims.string("aud", audience)
        claims.integer("exp", expiration)
        claims.string("sub", subject)
        claims.endObject()
        let signingInput = Base64URL.encode(header.bytes) + "." + Base64URL.encode(claims.bytes)
        let signature = (try? key.signature(for: Array(signingInput.utf8)))?.rawRepresentation
        let token = signingInput + "." + Base64URL.encode(signature.map { Array($0) } ?? [])
        return "vapid t=\(token), k=\(Base64URL.encode(key.publicKey.x963Representation))"
    }
}
