import Crypto
import MockAPNsCore

/// A push request's VAPID authorization (RFC 8292) taken apart and checked against the
/// subscription, the push service's origins and the clock: the claims as sent, for the
/// record, and one diagnosis per cause Apple answers 403 BadJwtToken for. Every cause that
/// holds is reported; the decider answers once.
struct VAPIDInspection {
    var claims: VAPIDClaims?
    var diagnoses: [Diagnosis] = []

    private static let refused = "Apple answers 403 BadJwtToken"

    /// - Parameters:
    ///   - authorization: the Authorization header, if any.
    ///   - cryptoKey: the Crypto-Key header (the draft scheme's key), if any.
    ///   - applicationServerKey: the subscription's VAPID key; `nil` skips the key comparison.
    ///   - origins: the origins a correct `aud` may name.
    ///   - nowSeconds: the server clock, seconds since 1970.
    init(
        authorization: String?, cryptoKey: String?, applicationServerKey: [UInt8]?, origins: [String],
        nowSeconds: Int64, maximumExpirationSeconds: Int64
    ) {
        guard let authorization, let field = AuthorizationField(Substring(authorization.trimmingWhitespace())) else {
            diagnoses.append(Diagnosis(.webPushVAPIDMissing,
                "The JWT is missing: the request has no Authorization header; \(Self.refused). Send `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292)."))
            return
        }
        var token: Substring?
        var key: Substring?
        if field.hasScheme("vapid") {
            for parameter in field.parameters {
                if parameter.name == "t", token == nil { token = parameter.value }
                if parameter.name == "k", key == nil { key = parameter.value }
            }
            if token == nil {
                malformed("`Authorization: vapid` has no `t=` parameter (the JWT): the JWT is missing; \(Self.refused).")
            }
            if key == nil {
                malformed("`Authorization: vapid` has no `k=` parameter: RFC 8292 §3.2 carries the public key there; \(Self.refused).")
            }
        } else if field.hasScheme("webpush") {
            token = field.credentials.isEmpty ? nil : field.credentials
            key = cryptoKey.flatMap(Self.draftKey)
            malformed("`Authorization: WebPush <JWT>` (with `Crypto-Key: p256ecdsa=<key>`) is the draft VAPID scheme used with the aesgcm encoding; "
                + "Safari takes only RFC 8292's `Authorization: vapid t=<JWT>, k=<key>`; \(Self.refused).")
        } else if field.hasScheme("bearer") {
            malformed("`Authorization: Bearer` is not VAPID (a provider token belongs to APNs' HTTP/2 API, not web push); "
                + "send `Authorization: vapid t=<JWT>, k=<key>`; \(Self.refused).")
        } else {
            malformed("`Authorization` scheme `\(field.scheme.prefix(40))` is not `vapid`; send `Authorization: vapid t=<JWT>, k=<key>`; \(Self.refused).")
        }
        var claims = VAPIDClaims(key: key.map(String.init))
        defer { self.claims = claims }

        // The key: k= must be a P-256 point, and the subscription's.
        var publicKey: P256.Signing.PublicKey?
        if let key {
            if let bytes = Base64URL.decode(key, alphabet: .url, allowingPadding: true), bytes.count == 65,
               let parsed = try? P256.Signing.PublicKey(x963Representation: bytes) {
                publicKey = parsed
                if let applicationServerKey, bytes != applicationServerKey {
                    diagnoses.append(Diagnosis(.webPushVAPIDWrongKey,
                        "The JWT is signed with a key other than the one the subscription was made with (applicationServerKey): "
                        + "k= is `\(key)`, the subscription's key is `\(Base64URL.encode(applicationServerKey))`; \(Self.refused). "
                        + "Sign with the private key whose public key the page passed to pushManager.subscribe, or subscribe again with the new key."))
                }
            } else {
                malformed("k= is `\(key.prefix(100))`, not the base64url encoding of a 65-byte uncompressed P-256 public key; \(Self.refused).")
            }
        }

        guard let token else { return }
        let jws: CompactJWS
        let header: [String: JSONValue]
        do {
            jws = try CompactJWS(token)
            header = try jws.headerObject()
        } catch {
            malformed(error)
            return
        }
        var payload: [String: JSONValue]?
        do {
            payload = try jws.claimsObject()
        } catch {
            malformed(error)
        }
        guard case .string(let algorithm)? = header["alg"] else {
            malformed("The JWT header has no string `alg`; VAPID requires `\"alg\":\"ES256\"`; \(Self.refused).")
            return
        }
        guard algorithm == "ES256" else {
            malformed("The JWT header's `alg` is `\(algorithm)`; VAPID requires ES256 (ECDSA with P-256 and SHA-256); \(Self.refused).")
            return
        }
        let signatureBytes: [UInt8]
        do {
            signatureBytes = try jws.signatureBytes()
        } catch {
            malformed(error)
            return
        }
        guard signatureBytes.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            malformed("The JWT signature is \(signatureBytes.count) bytes; an ES256 JWS signature is 64 bytes (r‖s), not DER; \(Self.refused).")
            return
        }
        if let publicKey {
            let signingInput = Array(jws.signingInput.utf8)
            if !publicKey.isValidSignature(signature, for: signingInput) {
                diagnoses.append(Diagnosis(.webPushVAPIDBadSignature,
                    "The JWT's signature does not verify with k=: it was signed with the wrong private key (not the one k= names), "
                    + "or the JWT was changed after signing; \(Self.refused)."))
            }
        }
        guard let payload else { return }
        if case .string(let subject)? = payload["sub"] { claims.subject = subject }
        if case .string(let audience)? = payload["aud"] { claims.audience = audience }
        checkAudience(payload["aud"], origins: origins)
        claims.expiration = checkExpiration(payload["exp"], nowSeconds: nowSeconds, maximum: maximumExpirationSeconds)
        if let problem = VAPIDSubjectRules.problem(payload["sub"]) {
            diagnoses.append(Diagnosis(.webPushVAPIDSubject, problem))
        }
    }

    private mutating func malformed(_ message: String) {
        diagnoses.append(Diagnosis(.webPushVAPIDMalformed, message))
    }

    /// What is wrong with the JWT's form, in web push's words.
    private mutating func malformed(_ failure: CompactJWS.Failure) {
        switch failure {
        case .partCount(let count):
            malformed("The JWT has \(count) dot-separated segment\(count == 1 ? "" : "s"), not 3 (header.claims.signature); \(Self.refused).")
        case .notBase64URL(let part):
            malformed("The JWT \(part.rawValue) is not unpadded base64url; \(Self.refused).")
        case .notUTF8(let part), .notJSON(let part, _):
            malformed("The JWT \(part.rawValue) is not JSON; \(Self.refused).")
        case .notObject(let part, let kind):
            malformed("The JWT \(part.rawValue) is \(kind), not a JSON object; \(Self.refused).")
        }
    }

    /// `aud` must be exactly one of `origins`: scheme://host[:port], no path, no trailing slash.
    private mutating func checkAudience(_ value: JSONValue?, origins: [String]) {
        var unique: [String] = []
        for origin in origins where !unique.contains(origin) { unique.append(origin) }
        let expected = unique.map { "`\($0)`" }.joined(separator: " or ")
        let fix = "Send the origin of the endpoint the push goes to: \(expected)."
        guard let value else {
            diagnoses.append(Diagnosis(.webPushVAPIDAudience, "`aud` is missing; \(Self.refused). \(fix)"))
            return
        }
        guard case .string(let audience) = value else {
            diagnoses.append(Diagnosis(.webPushVAPIDAudience, "`aud` is \(value.kindDescription), not a string; \(Self.refused). \(fix)"))
            return
        }
        guard !unique.contains(audience) else { return }
        let hint: String
        if audience.hasSuffix("/"), unique.contains(String(audience.dropLast())) {
            hint = "it ends with a slash; an origin has none"
        } else if let origin = unique.first(where: { audience.hasPrefix($0 + "/") }) {
            hint = "it carries a path; the audience is the origin only (`\(origin)`), not the endpoint's URL"
        } else if audience.lowercased().hasPrefix("http://"),
                  unique.contains(where: { $0.lowercased() == "https://" + audience.dropFirst("http://".count).lowercased() }) {
            hint = "it is `http:`; the push service's origin is `https:`"
        } else if unique.contains(where: { $0.lowercased() == audience.lowercased() }) {
            hint = "its letters differ in case from the origin's"
        } else {
            hint = "it names another origin than the push service the request was sent to"
        }
        diagnoses.append(Diagnosis(.webPushVAPIDAudience, "`aud` is `\(audience)`: \(hint); \(Self.refused). \(fix)"))
    }

    /// `exp` in whole seconds when it is a number, diagnosing it when it is missing, past or
    /// further ahead than `maximum`.
    private mutating func checkExpiration(_ value: JSONValue?, nowSeconds: Int64, maximum: Int64) -> Int64? {
        let limit = "Apple takes an `exp` at most \(maximum) seconds (\(Self.hours(maximum)) hours) ahead"
        guard let value else {
            diagnoses.append(Diagnosis(.webPushVAPIDExpiration, "`exp` is missing; \(Self.refused). \(limit)."))
            return nil
        }
        guard case .number(let text) = value else {
            diagnoses.append(Diagnosis(.webPushVAPIDExpiration,
                "`exp` is \(value.kindDescription), not a number of seconds since 1970 (a JSON number); \(Self.refused)."))
            return nil
        }
        let expiration: Int64
        if let whole = Int64(text) {
            expiration = whole
        } else if let real = Double(text), real.isFinite, real >= -9.2e18, real <= 9.2e18 {
            expiration = Int64(real.rounded(.down))
        } else {
            diagnoses.append(Diagnosis(.webPushVAPIDExpiration, "`exp` is \(text.prefix(40)), not a number of seconds since 1970; \(Self.refused)."))
            return nil
        }
        // Saturating: an `exp` near the ends of Int64 is simply far past or far ahead.
        let (difference, overflow) = expiration.subtractingReportingOverflow(nowSeconds)
        let ahead = overflow ? (expiration < 0 ? Int64.min : Int64.max) : difference
        let figures = [JournalFigure("exp", expiration), JournalFigure("now", nowSeconds),
                       JournalFigure("secondsAhead", ahead), JournalFigure("maximumSeconds", maximum)]
        if ahead > maximum {
            let amount = overflow ? "far" : "\(ahead) seconds (\(Self.hours(ahead)) hours)"
            // Milliseconds since 1970 read as seconds land tens of thousands of years ahead.
            let milliseconds = nowSeconds > 0 && expiration / 100 > nowSeconds ? " It looks like milliseconds; JWT times are seconds since 1970." : ""
            diagnoses.append(Diagnosis(.webPushVAPIDExpiration,
                "`exp` is \(expiration), \(amount) ahead of the server clock (\(nowSeconds)): the expiration is more than one day into the future; "
                + "\(Self.refused). \(limit).\(milliseconds)", figures: figures))
        } else if ahead <= 0 {
            let ago = ahead == 0 ? "now" : overflow ? "long ago" : "\(ahead.magnitude) seconds ago"
            diagnoses.append(Diagnosis(.webPushVAPIDExpiration,
                "`exp` is \(expiration), \(ago) by the server clock (\(nowSeconds)): "
                + "the JWT has expired; \(Self.refused). Sign a new JWT with `exp` in the next 24 hours.", figures: figures))
        }
        return expiration
    }

    /// `seconds` in hours with one decimal.
    private static func hours(_ seconds: Int64) -> String {
        let tenths = seconds / 360
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// The `p256ecdsa=` value of a draft-scheme Crypto-Key header.
    private static func draftKey(_ header: String) -> Substring? {
        for parameter in header.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let trimmed = parameter.trimmingWhitespace()
            if trimmed.lowercased().hasPrefix("p256ecdsa=") { return trimmed.dropFirst("p256ecdsa=".count) }
        }
        return nil
    }
}
