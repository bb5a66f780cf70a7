/// The canonical textual UUID: 32 hex digits grouped 8-4-4-4-12 by hyphens, 36 bytes in all.
///
/// This is the form `apns-id` must take. Braces, URNs, missing hyphens and surrounding
/// whitespace are all refused. The version and variant digits are not checked: Apple asks for
/// "a canonical UUID", and clients are free to send any of them.
package enum UUIDSyntax {
    /// The length of the canonical form in bytes.
    static let length = 36

    /// Whether `text` is a canonical UUID; uppercase letters count only if `allowsUppercase`.
    package static func isCanonical(_ text: String, allowsUppercase: Bool) -> Bool {
        text.withUTF8Bytes { bytes in
            guard bytes.count == length else { return false }
            // Hex digits are the common case; a hyphen counts only where the form puts one,
            // so exactly four of them means all four are in place.
            var hyphens = 0
            for offset in 0..<length {
                let byte = bytes[offset]
                if HexDigits.isHexDigit(byte, allowsUppercase: allowsUppercase) { continue }
                guard byte == UInt8(ascii: "-"), isHyphenPosition(offset) else { return false }
                hyphens += 1
            }
            return hyphens == 4
        }
    }

    /// Whether the byte at `offset` of the canonical form is a hyphen.
    @inline(__always)
    static func isHyphenPosition(_ offset: Int) -> Bool {
        offset == 8 || offset == 13 || offset == 18 || offset == 23
    }
}
