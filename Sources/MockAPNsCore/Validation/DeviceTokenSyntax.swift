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
        switch scan(token) {
        case .malformed: return nil
        case .lowercase: return String(token)
        case .hasUppercase: return Self.lowercased(token)
        }
    }

    private enum Scan {
        case malformed
        case lowercase
        case hasUppercase
    }

    private func scan(_ token: Substring) -> Scan {
        token.withUTF8Bytes { bytes in
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
    }

    /// `token` with `A-F` lowercased; the caller checked it is all hex digits.
    private static func lowercased(_ token: Substring) -> String {
        token.withUTF8Bytes { bytes in
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
}
