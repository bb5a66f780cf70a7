/// The device token as it appears in `:path`: an even number of hex digits, two per byte.
///
/// Apple's canonical form is lowercase. Accepted tokens are returned lowercased, so the
/// registry and the journal always see one spelling of a token.
struct DeviceTokenSyntax: Sendable {
    /// Whether `A-F` is allowed (then lowercased).
    var allowsUppercase: Bool
    /// The allowed decoded length in bytes.
    var byteLengths: ClosedRange<Int>

    /// The token in lowercase hex, or `nil` when it is not a well-formed token.
    func normalized(_ token: Substring) -> String? {
        token.withUTF8Bytes { normalized($0) }
    }

    /// The same, from the token's bytes as received (the one string made is the result).
    /// A well-formed lowercase token equal to `previous` byte for byte is `previous` itself:
    /// no string is made for a token that repeats the last one read.
    func normalized(_ token: UnsafeBufferPointer<UInt8>, reusing previous: String? = nil) -> String? {
        switch scan(token) {
        case .malformed: return nil
        case .lowercase:
            if let previous, previous.withUTF8Bytes({ $0.sameBytes(as: token) }) { return previous }
            return String(decoding: token, as: UTF8.self)
        case .hasUppercase: return Self.lowercased(token)
        }
    }

    /// Why `token` is not a well-formed token, in plain words for the provider's developer;
    /// `nil` when it is one. The checks are `normalized`'s, told apart.
    func problem(_ token: Substring) -> String? {
        guard normalized(token) == nil else { return nil }
        let digits = token.utf8.count
        if let offset = token.utf8.firstIndex(where: { !HexDigits.isHexDigit($0, allowsUppercase: true) }) {
            let position = token.utf8.distance(from: token.utf8.startIndex, to: offset)
            let character = token[offset...].first.map { "\($0)".unicodeScalars.map { $0.escaped(asASCII: true) }.joined() } ?? "?"
            return "The device token has \"\(character)\" at position \(position + 1), which is not a hex digit: "
                + "a token is sent as hex, two digits per byte (a token printed as Data's description, base64 or with spaces?)."
        }
        if !allowsUppercase, token.utf8.contains(where: HexDigits.isUppercaseHexLetter) {
            return "The device token has upper-case hex digits, which this server refuses (validation.acceptUppercaseTokens is false)."
        }
        if digits % 2 == 1 {
            return "The device token has \(digits) hex digits, an odd number: a token is whole bytes, two digits each "
                + "(a digit lost or added when it was copied?)."
        }
        return "The device token is \(digits / 2) bytes (\(digits) hex digits); this server takes "
            + "\(byteLengths.lowerBound) to \(byteLengths.upperBound) bytes (validation.minimumTokenBytes, validation.maximumTokenBytes)."
    }

    private enum Scan {
        case malformed
        case lowercase
        case hasUppercase
    }

    private func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
        let byteCount = bytes.count / 2
        guard bytes.count % 2 == 0,
              byteCount >= byteLengths.lowerBound, byteCount <= byteLengths.upperBound else {
            return .malformed
        }
        var hasUppercase = false
        for byte in bytes {
            guard HexDigits.isHexDigit(byte, allowsUppercase: allowsUppercase) else { return .malformed }
            if HexDigits.isUppercaseHexLetter(byte) { hasUppercase = true }
        }
        return hasUppercase ? .hasUppercase : .lowercase
    }

    /// `bytes` with `A-F` lowercased; the caller checked they are all hex digits.
    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for index in 0..<bytes.count {
                let byte = bytes[index]
                // ASCII letters differ from their lowercase forms by bit 5.
                buffer[index] = HexDigits.isUppercaseHexLetter(byte) ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }
}
