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
        let bytes = token.utf8
        let digitCount = bytes.count
        guard digitCount % 2 == 0, byteLengths.contains(digitCount / 2) else { return nil }

        var hasUppercase = false
        for byte in bytes {
            guard HexDigits.isHexDigit(byte, allowsUppercase: allowsUppercase) else { return nil }
            if HexDigits.isUppercaseHexLetter(byte) { hasUppercase = true }
        }
        // The common case (already lowercase) costs one copy and no per-byte work.
        guard hasUppercase else { return String(token) }
        return String(unsafeUninitializedCapacity: digitCount) { buffer in
            var index = 0
            for byte in bytes {
                // ASCII letters differ from their lowercase forms by bit 5.
                buffer[index] = HexDigits.isUppercaseHexLetter(byte) ? byte | 0x20 : byte
                index += 1
            }
            return digitCount
        }
    }
}
