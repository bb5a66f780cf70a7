/// The canonical textual UUID: 32 hex digits grouped 8-4-4-4-12 by hyphens, 36 bytes in all.
///
/// This is the form `apns-id` must take. Braces, URNs, missing hyphens and surrounding
/// whitespace are all refused. The version and variant digits are not checked: Apple asks for
/// "a canonical UUID", and clients are free to send any of them.
enum UUIDSyntax {
    /// The length of the canonical form in bytes.
    static let length = 36

    /// Whether `text` is a canonical UUID; uppercase letters count only if `allowsUppercase`.
    static func isCanonical(_ text: String, allowsUppercase: Bool) -> Bool {
        let bytes = text.utf8
        guard bytes.count == length else { return false }
        var offset = 0
        for byte in bytes {
            if isHyphenPosition(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard HexDigits.isHexDigit(byte, allowsUppercase: allowsUppercase) else { return false }
            }
            offset += 1
        }
        return true
    }

    /// Whether the byte at `offset` of the canonical form is a hyphen.
    @inline(__always)
    static func isHyphenPosition(_ offset: Int) -> Bool {
        offset == 8 || offset == 13 || offset == 18 || offset == 23
    }
}
