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
    /// used again. Text that holds no JWS holds nothing that can be replayed, and stays as it is.
    package static func removeSignatures(_ text: String) -> String {
        rewrite(text, mode: .removeSignature)
    }

    private enum Mode {
        case redact, removeSignature
    }

    /// `text` with each token rewritten as `mode` says.
    private static func rewrite(_ text: String, mode: Mode) -> String {
        // Most text (every other header value of every request) holds no token: that is
        // found by one pass over its bytes in place, without copying them.
        var text = text
        guard text.withUTF8({ holdsToken($0, mode: mode) }) else { return text }
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
            if mode == .redact, let credential = bearerCredential(bytes, run: index..<end) {
                out.append(contentsOf: bytes[index..<credential.lowerBound])
                if !credential.isEmpty { out.append(contentsOf: placeholder.utf8) }
                index = credential.upperBound
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
            if part + 2 < parts.count, isJOSEHeader(parts[part]), !parts[part + 1].isEmpty, !parts[part + 2].isEmpty {
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

    /// Whether `bytes` hold a JWS (three parts, the first a JOSE header), or, when redacting,
    /// the word `bearer` and a blank: the same structure `rewrite` looks for, found in place.
    /// Text without a token (every other header value of every request, topics included)
    /// costs one pass and no allocation.
    private static func holdsToken(_ bytes: UnsafeBufferPointer<UInt8>, mode: Mode) -> Bool {
        // A JWS has two dots: most values (a path, an id, a push type) have fewer, and
        // without the redaction's `bearer` rule that settles it in a tight loop.
        if mode == .removeSignature {
            var dots = 0
            for byte in bytes where byte == UInt8(ascii: ".") { dots += 1 }
            if dots < 2 { return false }
        }
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
            if mode == .redact, run.count == bearer.count, zip(run, bearer).allSatisfy({ $0 | 0x20 == $1 }),
               end < bytes.count, isBlank(bytes[end]) {
                return true
            }
            if dots >= 2, holdsJWS(run) { return true }
            index = end
        }
        return false
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
            if let header = twoBack, let claims = oneBack, !claims.isEmpty, !part.isEmpty, isJOSEHeader(run[header]) {
                return true
            }
            (twoBack, oneBack) = (oneBack, part)
            start = index + 1
        }
        return false
    }

    /// Whether `part` is unpadded base64url (as RFC 7515 writes a JWS) whose bytes are a JSON
    /// object: `{`, anything, `}`, with JSON's whitespace around. That is a JOSE header's shape.
    /// Decoded as it is read, without a copy; a first byte that is no `{` ends it at once.
    private static func isJOSEHeader(_ part: some Collection<UInt8>) -> Bool {
        // `{}` is the shortest object: 2 bytes, 3 characters. One leftover character is no byte.
        guard part.count >= 3, part.count % 4 != 1 else { return false }
        var buffer: UInt32 = 0
        var bits = 0
        var opened = false
        var last: UInt8 = 0
        for character in part {
            guard let value = Base64URL.sextet(character) else { return false }
            buffer = (buffer << 6 | UInt32(value)) & 0xFFFF
            bits += 6
            guard bits >= 8 else { continue }
            bits -= 8
            let byte = UInt8(truncatingIfNeeded: buffer >> UInt32(bits))
            if isJSONWhitespace(byte) { continue }
            if !opened {
                guard byte == UInt8(ascii: "{") else { return false }
                opened = true
            }
            last = byte
        }
        return opened && last == UInt8(ascii: "}")
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Base64url characters and the dots that join a JWS's parts.
    private static func isRunByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || Base64URL.sextet(byte) != nil
    }
}
