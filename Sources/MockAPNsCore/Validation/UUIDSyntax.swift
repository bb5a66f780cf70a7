import MockAPNsWire
/// The canonical textual UUID: 32 hex digits grouped 8-4-4-4-12 by hyphens, 36 bytes in all.
///
/// This is the form `apns-id` must take. Braces, URNs, missing hyphens and surrounding
/// whitespace are all refused. The version and variant digits are not checked: Apple asks for
/// "a canonical UUID", and clients are free to send any of them.
package enum UUIDSyntax {
    /// The length of the canonical form in bytes.
    static let length = UUIDBits.textLength

    /// Whether `text` is a canonical UUID; uppercase letters count only if `allowsUppercase`.
    package static func isCanonical(_ text: String, allowsUppercase: Bool) -> Bool {
        guard let reading = read(text) else { return false }
        return allowsUppercase || !reading.hasUppercase
    }

    /// A canonical UUID's digits, in either case or both.
    struct Reading {
        var high: UInt64
        var low: UInt64
        var hasLowercase: Bool
        var hasUppercase: Bool
    }

    /// `text` read as a canonical UUID (its letters of any case), eight digits at a time;
    /// `nil` when it is not one.
    static func read(_ text: String) -> Reading? {
        text.withUTF8Bytes { bytes in
            guard bytes.count == length, let base = bytes.baseAddress else { return nil }
            let raw = UnsafeRawPointer(base)
            guard raw.load(fromByteOffset: 8, as: UInt8.self) == UInt8(ascii: "-"),
                  raw.load(fromByteOffset: 13, as: UInt8.self) == UInt8(ascii: "-"),
                  raw.load(fromByteOffset: 18, as: UInt8.self) == UInt8(ascii: "-"),
                  raw.load(fromByteOffset: 23, as: UInt8.self) == UInt8(ascii: "-") else { return nil }
            func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
            func half(_ offset: Int) -> UInt64 { UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
            // The 32 digits as four runs of eight: 0-7, 9-12 with 14-17, 19-22 with 24-27, 28-35.
            guard let first = HexRun(word(0)), let second = HexRun(half(9) | half(14) << 32),
                  let third = HexRun(half(19) | half(24) << 32), let fourth = HexRun(word(28)) else { return nil }
            return Reading(
                high: first.value << 32 | second.value, low: third.value << 32 | fourth.value,
                hasLowercase: first.lowercase | second.lowercase | third.lowercase | fourth.lowercase != 0,
                hasUppercase: first.uppercase | second.uppercase | third.uppercase | fourth.uppercase != 0
            )
        }
    }
}

extension UUIDBits {
    /// The bits of `text`, when it is a canonical UUID with letters of one case; `nil` otherwise.
    /// A UUID without letters reads as lowercase (its text is the same either way).
    package init?(_ text: String) {
        guard let reading = UUIDSyntax.read(text), !(reading.hasLowercase && reading.hasUppercase) else { return nil }
        self.init(high: reading.high, low: reading.low, uppercase: reading.hasUppercase)
    }
}

/// Eight hex digits read at once, eight ASCII bytes in one word (the first digit in the lowest
/// byte): an id is read for every answer the journal packs, and a digit at a time cost more
/// than the rest of the packing.
struct HexRun {
    /// The number the digits spell, the first digit most significant.
    var value: UInt64
    /// The high bit of each byte that is a lowercase letter (`a` to `f`), and of each that is an
    /// uppercase one.
    var lowercase: UInt64
    var uppercase: UInt64

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// `nil` unless every byte is a hex digit.
    init?(_ word: UInt64) {
        guard word & Self.highBits == 0 else { return nil }
        // For bytes below 0x80, adding 0x80 - lo sets a byte's high bit exactly when it is at
        // least lo, and no byte carries into the next.
        func atLeast(_ word: UInt64, _ low: UInt8) -> UInt64 { (word &+ Self.ones &* UInt64(0x80 &- low)) & Self.highBits }
        let digits = atLeast(word, 0x30) & ~atLeast(word, 0x3A)
        let folded = word | Self.ones &* 0x20
        let letters = atLeast(folded, 0x61) & ~atLeast(folded, 0x67)
        guard digits | letters == Self.highBits else { return nil }
        // Bit 5 of a letter (0x20) tells its case; shifted two places it lines up with the marks.
        lowercase = letters & (word << 2)
        uppercase = letters & ~(word << 2)
        // Each byte's digit value: its low nibble, plus 9 for a letter.
        let nibbles = (word & (Self.ones &* 0x0F)) &+ (letters >> 7) &* 9
        // Pairs of bytes into one, then pairs of those, then the two halves, the first byte
        // ending up most significant.
        let bytes = (nibbles << 4 | nibbles >> 8) & 0x00FF_00FF_00FF_00FF
        let shorts = (bytes << 8 | bytes >> 16) & 0x0000_FFFF_0000_FFFF
        value = (shorts << 16 | shorts >> 32) & 0xFFFF_FFFF
    }
}
