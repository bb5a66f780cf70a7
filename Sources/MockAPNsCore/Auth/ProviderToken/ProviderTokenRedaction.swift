/// How provider tokens (JWTs) appear in what the server records and prints: the journal, the
/// JSONL file, the access log, the dashboard and log lines.
package enum ProviderTokenRecording: String, Sendable, Hashable, CaseIterable, Codable {
    /// The header and claims, readable; the signature replaced by `<signature removed>`, so a
    /// recorded token cannot be replayed (the default).
    case withoutSignature
    /// Whole tokens, signature included (`--journal-provider-tokens whole`): a token in the
    /// journal can be used again until it expires.
    case whole
    /// Every token replaced by `<redacted>` (`--redact-tokens`).
    case redacted

    /// `text` as it may be recorded under this setting.
    package func apply(_ text: String) -> String {
        switch self {
        case .withoutSignature: ProviderTokenRedaction.removeSignatures(text)
        case .whole: text
        case .redacted: ProviderTokenRedaction.redact(text)
        }
    }

    /// A header field's value as it may be recorded under this setting. Any field may carry a
    /// token (a misspelt `authorization`, a proxy's copy, a JWT sent as `apns-collapse-id`);
    /// `authorization`, the field whose value is a credential, keeps nothing after its
    /// credential's first word: a signature split by a blank must not leave its tail.
    package func apply(field name: String, value: String) -> String {
        guard name == "authorization" else { return apply(value) }
        switch self {
        case .whole: return value
        case .redacted: return ProviderTokenRedaction.placeholder
        case .withoutSignature: return ProviderTokenRedaction.removeSignatures(authorization: value)
        }
    }
}

/// Hides provider tokens (JWTs), or their signatures, in text the server prints or records.
///
/// Whatever carries a token is covered, not only the `authorization` header: a library's
/// error message quoting a header value (`value: [bearer eyJ…]`), a diagnosis, a log line.
/// Tokens are recognised by their structure, never by a prefix: a JWS in compact form is
/// three dot-separated base64url parts whose first decodes to a JSON object (its header), so
/// a token is found whatever scheme, spacing or header spelling surrounds it (`bearer␠␠`,
/// a tab, `Token `, no scheme, a header written `{ "alg"…` that encodes to `eyAi…`). Under
/// ``ProviderTokenRecording/redacted`` the credential after `bearer` and any blanks is
/// hidden too, whatever its shape. Device tokens (hex, no dots) and topics (dotted words
/// whose first part is no JSON object) stay readable.
package enum ProviderTokenRedaction {
    /// What replaces a token.
    package static let placeholder = "<redacted>"
    /// What replaces a JWT's signature.
    package static let signaturePlaceholder = "<signature removed>"

    /// `text` with every provider token replaced; the same string when there is none.
    package static func redact(_ text: String) -> String {
        rewrite(text, mode: .redact)
    }

    /// `text` with the signature of every JWT in it (its third dot-separated part) replaced
    /// by `<signature removed>`: the header and claims stay readable, and the token cannot be
    /// used again. A credential after `bearer` that is no JWS (a bare signature, an opaque
    /// token) is replaced by `<redacted>`, and so is a lone word of a bare ES256 signature's
    /// shape (86 base64url characters: 64 bytes), which a recorded header and claims would
    /// make whole again.
    package static func removeSignatures(_ text: String) -> String {
        rewrite(text, mode: .removeSignature)
    }

    /// An `authorization` value with its signatures removed, and anything after the
    /// credential's first word replaced by `<redacted>` (a signature split by a blank). VAPID's
    /// `t=…, k=…` parameters are one credential: its key is public, its JWT loses its signature.
    package static func removeSignatures(authorization value: String) -> String {
        let recorded = removeSignatures(value)
        guard let field = AuthorizationField(Substring(value)), !field.hasScheme("vapid"), field.credentialsHaveBlank else {
            return recorded
        }
        // The first credential word ends at its first blank; what follows is hidden whole. A
        // word holding `<` is no credential but a value already recorded (`<signature removed>`).
        guard let blank = field.credentials.utf8.firstIndex(where: AuthorizationField.isBlank),
              !field.credentials[..<blank].contains("<") else { return recorded }
        let kept = removeSignatures(String(value[..<blank]))
        return kept + " " + placeholder
    }

    private enum Mode {
        case redact, removeSignature
    }

    /// `text` with each token rewritten as `mode` says.
    private static func rewrite(_ text: String, mode: Mode) -> String {
        // Most text (every other header value of every request) holds no token: that is
        // found by one pass over its bytes in place, without copying them.
        var text = text
        guard text.withUTF8({ holdsToken($0) }) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard isRunByte(bytes[index]) else {
                out.append(bytes[index])
                index += 1
                continue
            }
            // A run: the longest stretch of base64url characters and dots from here.
            var end = index
            while end < bytes.count, isRunByte(bytes[end]) { end += 1 }
            // A credential holding `<` is no token: it is text already recorded
            // (`<signature removed>`), whose runs are looked at one by one below.
            if let credential = bearerCredential(bytes, run: index..<end), !bytes[credential].contains(UInt8(ascii: "<")) {
                out.append(contentsOf: bytes[index..<credential.lowerBound])
                // A JWS keeps its header and claims unless redacting; any other credential is
                // a secret of unknown shape (a bare signature, an opaque token): hidden.
                if mode == .removeSignature, holdsWholeJWS(bytes[credential]) {
                    rewriteRun(bytes[credential], mode: mode, into: &out)
                } else if !credential.isEmpty {
                    out.append(contentsOf: placeholder.utf8)
                }
                index = credential.upperBound
                continue
            }
            if isBareSignature(bytes[index..<end]) {
                out.append(contentsOf: (mode == .redact ? placeholder : signaturePlaceholder).utf8)
                index = end
                continue
            }
            rewriteRun(bytes[index..<end], mode: mode, into: &out)
            index = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Copies `run` into `out`, rewriting every JWS in it: three consecutive parts whose
    /// first is a JOSE header. A run may hold more parts around a token (`key.eyJ….eyJ….sig`).
    private static func rewriteRun(_ run: ArraySlice<UInt8>, mode: Mode, into out: inout [UInt8]) {
        let parts = run.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        var part = 0
        while part < parts.count {
            if part > 0 { out.append(UInt8(ascii: ".")) }
            if part + 2 < parts.count, CompactJWS.isHeaderShaped(parts[part]), !parts[part + 1].isEmpty, !parts[part + 2].isEmpty {
                switch mode {
                case .redact:
                    out.append(contentsOf: placeholder.utf8)
                case .removeSignature:
                    out.append(contentsOf: parts[part])
                    out.append(UInt8(ascii: "."))
                    out.append(contentsOf: parts[part + 1])
                    out.append(UInt8(ascii: "."))
                    out.append(contentsOf: signaturePlaceholder.utf8)
                }
                part += 3
                continue
            }
            out.append(contentsOf: parts[part])
            part += 1
        }
    }

    /// Where the credential after `bearer` lies when `run` is the word `bearer` (any letter
    /// case) followed by spaces or tabs; nil otherwise. The credential runs up to whitespace,
    /// a control character, or the punctuation that closes a quoted value.
    private static func bearerCredential(_ bytes: [UInt8], run: Range<Int>) -> Range<Int>? {
        guard run.count == bearer.count, zip(bytes[run], bearer).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        var start = run.upperBound
        guard start < bytes.count, isBlank(bytes[start]) else { return nil }
        while start < bytes.count, isBlank(bytes[start]) { start += 1 }
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "\"")
                || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") {
                break
            }
            end += 1
        }
        return start..<end
    }

    private static let bearer: [UInt8] = Array("bearer".utf8)

    /// Whether `bytes` hold a JWS (three parts, the first a JOSE header), the word `bearer`
    /// and a blank, or a word of a bare signature's shape: the same structures `rewrite` looks
    /// for, found in place. Text without them (every other header value of every request,
    /// topics included) costs one pass and no allocation.
    private static func holdsToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Each structure needs two dots (a JWS), a blank (after `bearer`) or a word of 86
        // base64url characters (a bare signature): most values (a device token, a UUID, a
        // push type) have none, and a tight loop over their bytes settles it.
        var dots = 0
        var blank = false
        var word = 0
        var signatureLong = false
        for byte in bytes {
            if Base64URL.sextet(byte) != nil {
                word += 1
                continue
            }
            if word == bareSignatureLength { signatureLong = true }
            word = 0
            if byte == UInt8(ascii: ".") { dots += 1 } else if isBlank(byte) { blank = true }
        }
        if dots < 2, !blank, !signatureLong, word != bareSignatureLength { return false }
        var index = 0
        while index < bytes.count {
            guard isRunByte(bytes[index]) else {
                index += 1
                continue
            }
            var end = index
            var dots = 0
            while end < bytes.count, isRunByte(bytes[end]) {
                if bytes[end] == UInt8(ascii: ".") { dots += 1 }
                end += 1
            }
            let run = bytes[index..<end]
            if run.count == bearer.count, zip(run, bearer).allSatisfy({ $0 | 0x20 == $1 }),
               end < bytes.count, isBlank(bytes[end]) {
                return true
            }
            if dots >= 2, holdsJWS(run) { return true }
            if dots == 0, isBareSignature(run) { return true }
            index = end
        }
        return false
    }

    /// An ES256 signature (64 bytes, r‖s) in unpadded base64url is 86 characters.
    private static let bareSignatureLength = 86

    /// Whether `run` is one word of a bare ES256 signature's shape: 86 base64url characters,
    /// not all of them hex digits (a device token of 43 bytes is 86 hex digits; a signature's
    /// base64url all in hex digits is as likely as 86 throws of a 64-sided die landing on 22
    /// of its faces).
    private static func isBareSignature(_ run: some Collection<UInt8>) -> Bool {
        run.count == bareSignatureLength && !run.contains(UInt8(ascii: ".")) && !run.allSatisfy(isHexDigit)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// Whether `credential` is exactly one JWS: three non-empty parts, the first a JOSE header.
    private static func holdsWholeJWS(_ credential: ArraySlice<UInt8>) -> Bool {
        let parts = credential.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 3 && CompactJWS.isHeaderShaped(parts[0]) && !parts[1].isEmpty && !parts[2].isEmpty
    }

    /// Whether a run of base64url characters and dots has three consecutive non-empty parts
    /// of which the first is a JOSE header.
    private static func holdsJWS(_ run: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        // The run's parts, walked without collecting them: the two before the current one.
        var twoBack: Range<Int>?
        var oneBack: Range<Int>?
        var start = run.startIndex
        for index in run.startIndex...run.endIndex where index == run.endIndex || run[index] == UInt8(ascii: ".") {
            let part = start..<index
            if let header = twoBack, let claims = oneBack, !claims.isEmpty, !part.isEmpty, CompactJWS.isHeaderShaped(run[header]) {
                return true
            }
            (twoBack, oneBack) = (oneBack, part)
            start = index + 1
        }
        return false
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Base64url characters and the dots that join a JWS's parts.
    private static func isRunByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || Base64URL.sextet(byte) != nil
    }
}
