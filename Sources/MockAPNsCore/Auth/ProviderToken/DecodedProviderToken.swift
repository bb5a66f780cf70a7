import Crypto

/// A provider token taken apart (RFC 7519 compact form), not yet trusted: the signature has not
/// been checked. Decoding fails with InvalidProviderToken on anything that is not an ES256 JWT
/// with `kid`, `iss` and `iat`.
struct DecodedProviderToken: Sendable {
    /// The header's `kid`.
    var keyID: String
    /// The `iss` claim.
    var issuer: String
    /// The `iat` claim in whole seconds.
    var issuedAt: Int64
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    var signingInput: Substring.UTF8View
    var signature: P256.Signing.ECDSASignature
    var notes: [ProviderTokenNote]

    init(_ token: Substring) throws(ProviderTokenRejection) {
        let jws: CompactJWS
        let header: [String: JSONValue]
        let claims: [String: JSONValue]
        do {
            jws = try CompactJWS(token)
            header = try jws.headerObject()
            claims = try jws.claimsObject()
        } catch {
            throw Self.invalid(Self.describe(error))
        }
        var notes: [ProviderTokenNote] = []

        guard case .string(let algorithm)? = header["alg"] else {
            throw Self.invalid("header has no string \"alg\"")
        }
        guard algorithm == "ES256" else {
            throw Self.invalid("header \"alg\" is \"\(algorithm)\"; APNs requires \"ES256\"")
        }
        guard case .string(let keyID)? = header["kid"], !keyID.isEmpty else {
            throw Self.invalid("header has no string \"kid\"")
        }
        if let type = header["typ"] {
            guard case .string = type else { throw Self.invalid("header \"typ\" is not a string") }
        }
        let extraHeader = header.keys.filter { !["alg", "kid", "typ"].contains($0) }.sorted()
        if !extraHeader.isEmpty { notes.append(.additionalHeaderFields(extraHeader)) }

        guard case .string(let issuer)? = claims["iss"], !issuer.isEmpty else {
            throw Self.invalid("claims have no string \"iss\"")
        }
        guard let issuedAtValue = claims["iat"] else {
            throw Self.invalid("claims have no \"iat\"")
        }
        let issuedAt = try Self.issuedAt(issuedAtValue, notes: &notes)
        let extraClaims = claims.keys.filter { !["iss", "iat"].contains($0) }.sorted()
        if !extraClaims.isEmpty { notes.append(.additionalClaims(extraClaims)) }

        let signatureBytes: [UInt8]
        do {
            signatureBytes = try jws.signatureBytes()
        } catch {
            throw Self.invalid(Self.describe(error))
        }
        // JOSE's form is exactly 64 bytes (r‖s). Anything else is tried as DER, which APNs also
        // accepts; a DER signature is never 64 bytes in practice (70–72 for P-256).
        if signatureBytes.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) {
            signature = raw
        } else if let der = try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes) {
            signature = der
            notes.append(.signatureInDERForm)
        } else {
            throw Self.invalid("signature is neither 64 bytes of r||s nor a DER ECDSA signature (\(signatureBytes.count) bytes)")
        }

        self.keyID = keyID
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.signingInput = jws.signingInput.utf8
        self.notes = notes
    }

    /// Whether `key` signed this token.
    func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        key.isValidSignature(signature, for: Array(signingInput))
    }

    /// What is wrong with the token's form, in this module's words.
    private static func describe(_ failure: CompactJWS.Failure) -> String {
        switch failure {
        case .partCount(let count): "expected three dot-separated segments, found \(count)"
        case .notBase64URL(let part): "\(part.rawValue) is not unpadded base64url"
        case .notUTF8(let part): "\(part.rawValue) is not UTF-8"
        case .notJSON(let part, let error): "\(part.rawValue) is not JSON (\(error.position): \(error.message))"
        case .notObject(let part, let kind): "\(part.rawValue) is \(kind), not a JSON object"
        }
    }

    /// `iat` as a NumericDate: a JSON number, or (leniently, noted) a string holding one.
    /// A fraction is dropped (noted); anything else, or a value beyond 64-bit seconds, is invalid.
    private static func issuedAt(_ value: JSONValue, notes: inout [ProviderTokenNote]) throws(ProviderTokenRejection) -> Int64 {
        let text: String
        switch value {
        case .number(let number):
            text = number
        case .string(let string):
            text = string
            notes.append(.issuedAtSentAsString)
        default:
            throw invalid("claim \"iat\" is \(value.kindDescription), not a number")
        }
        if let whole = Int64(text) { return whole }
        // A JSON number with a fraction or an exponent. Strings must look like JSON numbers too,
        // so " 17e8" or "0x10" are refused.
        guard case .number = (try? JSONParser.parse(text))?.value,
              let real = Double(text), real.isFinite,
              real >= -9.2e18, real <= 9.2e18 else {
            throw invalid("claim \"iat\" is not a number of seconds: \"\(text)\"")
        }
        let whole = real.rounded(.down)
        if whole != real { notes.append(.issuedAtHasFraction) }
        return Int64(whole)
    }

    private static func invalid(_ detail: String) -> ProviderTokenRejection {
        ProviderTokenRejection(.invalidProviderToken, detail)
    }
}
