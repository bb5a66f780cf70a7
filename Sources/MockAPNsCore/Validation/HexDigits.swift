/// Byte-level helpers for hexadecimal text, shared by the token and `apns-id` rules.
///
/// They work on UTF-8 bytes rather than `Character`s because they run for every request.
enum HexDigits {
    /// Whether `byte` is `0-9` or `a-f`, or also `A-F` when `allowsUppercase` is set.
    @inline(__always)
    static func isHexDigit(_ byte: UInt8, allowsUppercase: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
            return true
        case UInt8(ascii: "A")...UInt8(ascii: "F"):
            return allowsUppercase
        default:
            return false
        }
    }

    /// Whether `byte` is `A-F`.
    @inline(__always)
    static func isUppercaseHexLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F")
    }

    /// The digit for a value in `0...15`, in the requested case.
    @inline(__always)
    static func digit(_ value: UInt8, uppercase: Bool) -> UInt8 {
        if value < 10 { return UInt8(ascii: "0") + value }
        return (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }
}
