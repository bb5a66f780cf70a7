import MockAPNsCore
/// A mistake real provider code makes on the legacy gateway, explained in plain words.
///
/// Apple's gateway answered these with a bare status byte, or with nothing; the mock names
/// the likely cause. The decoder produces the frame-level ones; the server detects the
/// connection-level ones and uses these cases to report them.
package enum LegacyDiagnosis: Sendable, Hashable {
    /// The payload length prefix is shorter than the JSON it frames: the JSON is cut off and
    /// its tail is read as the next frame. `declared` bytes were announced, the JSON is
    /// `jsonLength` bytes. `multiByteExtra` is how many bytes the JSON's non-ASCII characters
    /// add beyond one per character; when it equals the shortfall, the length was a character
    /// count, not a UTF-8 byte count.
    case payloadLengthTooShort(identifier: UInt32?, declared: Int, jsonLength: Int, multiByteExtra: Int)
    /// The payload length prefix is longer than the JSON it frames: after the JSON come
    /// `declared - jsonLength` more bytes. When they look like the start of a new frame
    /// (command 0, 1 or 2), the next notification was swallowed into this payload.
    case payloadLengthTooLong(identifier: UInt32?, declared: Int, jsonLength: Int, tailLooksLikeFrame: Bool)
    /// The payload ends with NUL bytes after complete JSON: a C string sent with its
    /// terminator, or a fixed-size buffer sent whole. Apple's documentation says the payload
    /// must not be NUL-terminated.
    case payloadNULTerminated(identifier: UInt32?)
    /// The payload is not JSON. `offset` is the first offending byte, or `nil` when the JSON
    /// simply stops before it is complete.
    case payloadNotJSON(identifier: UInt32?, offset: Int?)
    /// The token bytes are ASCII hex digits: the hex string was sent instead of the binary
    /// token it spells (typically 64 bytes instead of 32).
    case asciiHexToken(identifier: UInt32?, length: Int)
    /// A length field read big-endian is implausible but makes sense byte-swapped: it was
    /// written in little-endian (host) order.
    case littleEndianLength(field: LengthField, declared: UInt32, swapped: UInt32)
    /// The first bytes of the connection are text from another protocol (an HTTP/1.1 request
    /// or the HTTP/2 preface): the client is pointed at the binary gateway's port by mistake.
    case notBinaryProtocol(preview: String)
    /// Many short connections, each carrying about one notification. Apple treated rapid
    /// connect/disconnect cycles as a denial-of-service attempt; providers should keep a
    /// connection open and stream notifications over it.
    case connectionChurn(connections: Int, seconds: Int, notificationsPerConnection: Double)
    /// The client closed (or reset) the connection before reading the error packet the server
    /// sent, so it cannot know which notification failed or which later ones were dropped.
    case closedWithoutReadingError(status: LegacyStatus, identifier: UInt32)
    /// A command-0 or command-1 frame whose token was shorter than its token length field
    /// says: the field announced `declaredTokenLength` bytes, so the real payload length and
    /// the start of the JSON were read as the token's tail, and two bytes inside the JSON
    /// (`misreadBytes`) were read as a payload length of `misreadLength`. Read with a
    /// `tokenLength`-byte token the frame holds a `payloadLength`-byte payload. A
    /// `tokenLength` of 0 is a token left out entirely (`legacy.tokenLeftOut`).
    case tokenShorterThanItsLength(
        identifier: UInt32?, declaredTokenLength: Int, tokenLength: Int, payloadLength: Int,
        misreadBytes: [UInt8], misreadLength: Int
    )
    /// Notification identifiers that read as large round numbers big-endian but as small
    /// ones byte-swapped (16777216 for 1): they were written in host (little-endian) order.
    case byteSwappedIdentifier(identifier: UInt32, swapped: UInt32)

    /// Which length field a diagnosis is about.
    package enum LengthField: String, Sendable, Hashable, Codable {
        case tokenLength = "token length"
        case payloadLength = "payload length"
        case frameLength = "frame length"
    }

    /// The journal's code for it.
    package var code: DiagnosisCode {
        switch self {
        case .payloadLengthTooShort: .legacyPayloadLengthTooShort
        case .payloadLengthTooLong: .legacyPayloadLengthTooLong
        case .payloadNULTerminated: .legacyPayloadNULTerminated
        case .payloadNotJSON: .legacyPayloadNotJSON
        case .asciiHexToken: .legacyASCIIHexToken
        case .littleEndianLength: .legacyLittleEndianLength
        case .notBinaryProtocol: .legacyNotBinaryProtocol
        case .connectionChurn: .legacyConnectionChurn
        case .closedWithoutReadingError: .legacyClosedWithoutReadingError
        case .tokenShorterThanItsLength(_, _, let tokenLength, _, _, _):
            tokenLength == 0 ? .legacyTokenLeftOut : .legacyTokenShorterThanItsLength
        case .byteSwappedIdentifier: .legacyByteSwappedIdentifier
        }
    }

    /// The numbers behind the diagnosis, by name, for the journal.
    package var figures: [JournalFigure] {
        switch self {
        case .payloadLengthTooShort(_, let declared, let jsonLength, let extra):
            return [JournalFigure("declaredLength", Int64(declared)), JournalFigure("jsonLength", Int64(jsonLength)),
                    JournalFigure("multiByteExtra", Int64(extra))]
        case .payloadLengthTooLong(_, let declared, let jsonLength, _):
            return [JournalFigure("declaredLength", Int64(declared)), JournalFigure("jsonLength", Int64(jsonLength))]
        case .payloadNotJSON(_, let offset):
            return offset.map { [JournalFigure("offset", Int64($0))] } ?? []
        case .asciiHexToken(_, let length):
            return [JournalFigure("tokenLength", Int64(length))]
        case .littleEndianLength(_, let declared, let swapped):
            return [JournalFigure("declared", Int64(declared)), JournalFigure("swapped", Int64(swapped))]
        case .connectionChurn(let connections, let seconds, let perConnection):
            return [JournalFigure("connections", Int64(connections)), JournalFigure("windowSeconds", Int64(seconds)),
                    JournalFigure("notifications", Int64((perConnection * Double(connections)).rounded()))]
        case .closedWithoutReadingError(let status, let identifier):
            return [JournalFigure("status", Int64(status.rawValue)), JournalFigure("identifier", Int64(identifier))]
        case .tokenShorterThanItsLength(_, let declared, let tokenLength, let payloadLength, _, let misread):
            return [JournalFigure("declaredTokenLength", Int64(declared)), JournalFigure("tokenLength", Int64(tokenLength)),
                    JournalFigure("payloadLength", Int64(payloadLength)), JournalFigure("misreadPayloadLength", Int64(misread))]
        case .byteSwappedIdentifier(let identifier, let swapped):
            return [JournalFigure("identifier", Int64(identifier)), JournalFigure("swapped", Int64(swapped))]
        case .payloadNULTerminated, .notBinaryProtocol:
            return []
        }
    }

    /// The diagnosis in plain words.
    package var message: String {
        switch self {
        case .payloadLengthTooShort(let identifier, let declared, let jsonLength, let extra):
            let shortfall = jsonLength - declared
            var text = "\(Self.name(identifier)): the payload length says \(declared) bytes but the JSON is "
                + "\(jsonLength) bytes, so it was cut off and its last \(shortfall) bytes were read as the next frame."
            if extra == shortfall {
                text += " The JSON has non-ASCII characters that take \(extra) extra bytes in UTF-8: the length"
                    + " was counted in characters; count the UTF-8 bytes instead."
            }
            return text
        case .payloadLengthTooLong(let identifier, let declared, let jsonLength, let looksLikeFrame):
            var text = "\(Self.name(identifier)): the payload length says \(declared) bytes but the JSON ends after "
                + "\(jsonLength); \(declared - jsonLength) more bytes were taken as payload."
            if looksLikeFrame {
                text += " They look like the start of the next notification, which was swallowed into this"
                    + " payload and lost; every frame after it is misaligned."
            }
            return text
        case .payloadNULTerminated(let identifier):
            return "\(Self.name(identifier)): the payload ends with NUL bytes after the JSON. Send the JSON "
                + "bytes only, without a C string terminator or buffer padding, and count the length without them."
        case .payloadNotJSON(let identifier, let offset):
            if let offset {
                return "\(Self.name(identifier)): the payload is not valid JSON (first bad byte at offset \(offset))."
            }
            return "\(Self.name(identifier)): the payload is not valid JSON: it stops before the JSON is complete."
        case .asciiHexToken(let identifier, let length):
            return "\(Self.name(identifier)): the \(length)-byte token consists of ASCII hex digits. Send the "
                + "\(length / 2) binary bytes the hex string spells, not the string itself."
        case .littleEndianLength(let field, let declared, let swapped):
            return "The \(field.rawValue) reads \(declared) big-endian but \(swapped) byte-swapped: lengths on the "
                + "binary gateway are big-endian (network order); this one was written in host order."
        case .notBinaryProtocol(let preview):
            return "The connection began with \"\(preview)\", which is not the binary protocol: this client "
                + "speaks HTTP and belongs on the HTTP/2 provider API port, not the legacy gateway."
        case .connectionChurn(let connections, let seconds, let perConnection):
            let average = (perConnection * 10).rounded() / 10
            return "\(connections) connections in \(seconds) s carrying about \(average) notifications each. "
                + "Apple treats rapid connect/disconnect as a denial-of-service attempt: keep one connection "
                + "open and stream notifications over it."
        case .closedWithoutReadingError(let status, let identifier):
            return "The client closed the connection without reading the error packet (status \(status.rawValue), "
                + "identifier \(identifier)): it cannot know which notification failed or which later ones "
                + "were dropped and must be resent."
        case .tokenShorterThanItsLength(let identifier, let declared, let tokenLength, let payloadLength, let misread, let misreadLength):
            let bytes = misread.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
            let text = misread.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? " (\"\(String(decoding: misread, as: UTF8.self))\")" : ""
            if tokenLength == 0 {
                return "\(Self.name(identifier)): the token length field says \(declared) bytes but no token follows it: the "
                    + "payload length and the start of the JSON were read as the token, and the bytes \(bytes)\(text) inside "
                    + "the JSON were read as a payload length of \(misreadLength). Read without a token, the frame is a "
                    + "\(payloadLength)-byte JSON payload. Write the \(declared)-byte token between the token length and the "
                    + "payload length."
            }
            return "\(Self.name(identifier)): the token length field says \(declared) bytes but the token is only "
                + "\(tokenLength): the real payload length and the start of the JSON were read as the rest of the token, "
                + "and the bytes \(bytes)\(text) inside the JSON were read as a payload length of \(misreadLength). "
                + "Read with a \(tokenLength)-byte token, the frame is a \(payloadLength)-byte JSON payload. Send the "
                + "whole token (\(declared) bytes), or a token length field that matches it."
        case .byteSwappedIdentifier(let identifier, let swapped):
            return "Notification identifier \(identifier) is \(swapped) byte-swapped: it was written in host "
                + "(little-endian) byte order. The gateway reads and echoes identifiers big-endian (network order), "
                + "so an error packet will name \(identifier), not \(swapped)."
        }
    }

    private static func name(_ identifier: UInt32?) -> String {
        identifier.map { "Notification \($0)" } ?? "A notification without identifier"
    }
}

/// Spotting mistakes in one frame's fields. Everything here runs only on bytes already
/// decoded, and allocates only when something is wrong.
enum LegacyMistakeDetector {
    /// Token bytes that are all ASCII hex digits, in an even number large enough that binary
    /// tokens practically never look like that (32 random bytes are all hex digits with odds
    /// of about 1 in 10^34).
    static func asciiHexToken(_ token: UnsafeRawBufferPointer, identifier: UInt32?) -> LegacyDiagnosis? {
        guard token.count >= 16, token.count % 2 == 0, token.allSatisfy({ HexDigits.isHexDigit($0, allowsUppercase: true) }) else {
            return nil
        }
        return .asciiHexToken(identifier: identifier, length: token.count)
    }

    /// Payload mistakes: every payload that is not exactly one JSON value is `payloadNotJSON`
    /// (the piece of a mis-framed frame too, accepted or not), after the diagnosis that says
    /// why, when one does. `json` is `payload` already examined; `following` is whatever
    /// bytes came after the frame in the same read, which is where the tail of a cut-off
    /// payload is found.
    static func payload(
        _ payload: UnsafeRawBufferPointer,
        json: PayloadJSON,
        following: UnsafeRawBufferPointer,
        identifier: UInt32?
    ) -> [LegacyDiagnosis] {
        switch json.scan {
        case nil:
            return []
        case .complete(let end):
            guard case .badByte(let tail) = json.problem else { return [] }
            let notJSON = LegacyDiagnosis.payloadNotJSON(identifier: identifier, offset: tail)
            // One NUL is a C string's terminator; several are a fixed-size buffer's padding.
            if payload.legacySuffix(from: tail).allSatisfy({ $0 == 0 }) {
                return [.payloadNULTerminated(identifier: identifier), notJSON]
            }
            return [.payloadLengthTooLong(
                identifier: identifier,
                declared: payload.count,
                jsonLength: end,
                tailLooksLikeFrame: payload[tail] <= LegacyCommand.frame.rawValue
            ), notJSON]
        case .truncated:
            let notJSON = LegacyDiagnosis.payloadNotJSON(identifier: identifier, offset: nil)
            if let jsonLength = completedLength(of: payload, with: following) {
                return [.payloadLengthTooShort(
                    identifier: identifier,
                    declared: payload.count,
                    jsonLength: jsonLength,
                    multiByteExtra: multiByteExtra(payload) + multiByteExtra(following.legacyPrefix(jsonLength - payload.count))
                ), notJSON]
            }
            return [notJSON]
        case .invalid(let offset):
            return [.payloadNotJSON(identifier: identifier, offset: offset)]
        }
    }

    /// If the cut-off JSON in `payload` is completed by the start of `following`, the full
    /// JSON's length. Looks at most 64 KiB ahead.
    private static func completedLength(of payload: UnsafeRawBufferPointer, with following: UnsafeRawBufferPointer) -> Int? {
        guard following.count > 0 else { return nil }
        var joined = [UInt8](payload)
        joined += following.legacyPrefix(Int(UInt16.max))
        return joined.withUnsafeBytes { bytes in
            if case .complete(let end) = JSONScanner.scanValue(bytes), end > payload.count { return end }
            return nil
        }
    }

    /// How many bytes beyond one per character the UTF-8 sequences in `bytes` take (every
    /// continuation byte counts once).
    private static func multiByteExtra(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 1 : 0) }
    }

    /// A length that is implausible as written but plausible byte-swapped.
    static func littleEndian(_ field: LegacyDiagnosis.LengthField, declared: UInt32, plausible: ClosedRange<UInt32>, bitWidth: Int) -> LegacyDiagnosis? {
        let swapped = bitWidth == 16 ? UInt32(UInt16(truncatingIfNeeded: declared).byteSwapped) : declared.byteSwapped
        guard !plausible.contains(declared), plausible.contains(swapped) else { return nil }
        return .littleEndianLength(field: field, declared: declared, swapped: swapped)
    }

    /// An identifier that reads as a large round number but as a small one byte-swapped
    /// (16777216 is 1, 33554432 is 2): written in host order. Real identifiers that large
    /// with two zero low bytes are rare enough for a hint.
    static func byteSwapped(_ identifier: UInt32) -> LegacyDiagnosis? {
        let swapped = identifier.byteSwapped
        guard identifier >= 0x0100_0000, identifier & 0xFFFF == 0, swapped > 0, swapped <= 0xFFFF else { return nil }
        return .byteSwappedIdentifier(identifier: identifier, swapped: swapped)
    }

    /// A command-0 or -1 frame "too large" only because its token was shorter than its token
    /// length field: somewhere inside what was read as the token sit a plausible payload
    /// length and the `{` of a JSON payload, and the JSON that starts there (continuing
    /// through the misread length bytes and what followed) has exactly that length, or is
    /// cut off by the end of the read.
    static func shortToken(
        _ error: LegacyFrameError, misreadLength: Int, frameStart: UnsafeRawBufferPointer,
        following: UnsafeRawBufferPointer, maximumPayloadLength: Int
    ) -> LegacyDiagnosis? {
        guard let token = error.token, token.count >= 4,
              let command = LegacyCommand(rawValue: error.command), command != .frame else { return nil }
        let header = command == .simple ? LegacyFrameParser.simpleHeaderLength : LegacyFrameParser.enhancedHeaderLength
        let misreadStart = header + token.count
        guard frameStart.count >= misreadStart + 2 else { return nil }
        let misread = [UInt8](frameStart[misreadStart..<misreadStart + 2])
        // A token length of 0 is a token left out entirely: the payload length follows the
        // token length field at once.
        for tokenLength in 0...(token.count - 3) where token[tokenLength + 2] == UInt8(ascii: "{") {
            let payloadLength = Int(token[tokenLength]) << 8 | Int(token[tokenLength + 1])
            guard payloadLength >= 2, payloadLength <= maximumPayloadLength else { continue }
            var meant = [UInt8](token[(tokenLength + 2)...])
            meant += misread
            meant += following.legacyPrefix(payloadLength)
            let outcome = meant.withUnsafeBytes { JSONScanner.scanValue($0) }
            let fits: Bool
            switch outcome {
            case .complete(let end): fits = end == payloadLength
            case .truncated: fits = meant.count < payloadLength
            case .invalid: fits = false
            }
            guard fits else { continue }
            return .tokenShorterThanItsLength(
                identifier: error.identifier, declaredTokenLength: token.count, tokenLength: tokenLength,
                payloadLength: payloadLength, misreadBytes: misread, misreadLength: misreadLength
            )
        }
        return nil
    }

    /// Text from an HTTP client at the start of a connection.
    static func otherProtocol(_ bytes: UnsafeRawBufferPointer) -> LegacyDiagnosis? {
        let prefixes = ["PRI * HTTP/2", "POST ", "GET ", "PUT ", "HEAD "]
        let head = bytes.legacyPrefix(16)
        for prefix in prefixes where head.starts(with: prefix.utf8) {
            let printable = head.prefix { $0 >= 0x20 && $0 < 0x7F }
            return .notBinaryProtocol(preview: String(decoding: printable, as: UTF8.self))
        }
        return nil
    }
}
