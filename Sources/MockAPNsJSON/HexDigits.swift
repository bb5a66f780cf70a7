/// Byte-level helpers for hexadecimal text, shared by the token and `apns-id` rules.
///
/// They work on UTF-8 bytes rather than `Character`s because they run for every request,
/// and use arithmetic rather than branches on ranges for the same reason; the per-byte ones
/// are inlinable, so the token and id rules in other modules check each byte in place rather
/// than through a call.
package enum HexDigits {
    /// Whether `byte` is `0-9` or `a-f`, or also `A-F` when `allowsUppercase` is set.
    @inlinable @inline(__always)
    package static func isHexDigit(_ byte: UInt8, allowsUppercase: Bool) -> Bool {
        if byte &- UInt8(ascii: "0") < 10 { return true }
        if byte &- UInt8(ascii: "a") < 6 { return true }
        return allowsUppercase && isUppercaseHexLetter(byte)
    }

    /// Whether `byte` is `A-F`.
    @inlinable @inline(__always)
    package static func isUppercaseHexLetter(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "A") < 6
    }

    /// The bytes an even number of hex digits (either case) spell, or `nil`.
    package static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The value of one hex digit (either case), or `nil`.
    @inlinable @inline(__always)
    package static func value(_ digit: UInt8) -> UInt8? {
        if digit &- UInt8(ascii: "0") < 10 { return digit &- UInt8(ascii: "0") }
        if digit &- UInt8(ascii: "a") < 6 { return digit &- UInt8(ascii: "a") + 10 }
        if isUppercaseHexLetter(digit) { return digit &- UInt8(ascii: "A") + 10 }
        return nil
    }

    /// The digit for a value in `0...15`, in the requested case.
    @inlinable @inline(__always)
    package static func digit(_ value: UInt8, uppercase: Bool) -> UInt8 {
        if value < 10 { return UInt8(ascii: "0") + value }
        return (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }
}
