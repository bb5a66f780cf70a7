import Synchronization

/// Random (version 4) UUIDs in canonical text form, for generated `apns-id` and
/// `apns-unique-id` values.
///
/// The bits come from `UniqueBits`, a fast generator seeded once from the system's
/// randomness: asking the kernel for 16 bytes per id costs a system call each time, more than
/// the rest of a request's decision. The text is formatted by hand into one 36-byte string
/// (`UUIDSyntax.text`).
package struct UUIDGenerator: Sendable {
    /// The letter case of the hex digits.
    package var letterCase: UUIDLetterCase

    package init(letterCase: UUIDLetterCase) {
        self.letterCase = letterCase
    }

    /// A new random UUID such as `8f0c5ab2-4d1e-4c8a-9b7e-2f3a4b5c6d7e`.
    package func next() -> String {
        let (high, low) = UniqueBits.shared.next128()
        return Self.format(high: high, low: low, uppercase: letterCase == .uppercase)
    }

    /// Formats 128 bits as a version-4, RFC 4122-variant UUID.
    static func format(high: UInt64, low: UInt64, uppercase: Bool) -> String {
        // Version 4 in the high nibble of byte 6; variant 10xx in the top bits of byte 8.
        let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return UUIDSyntax.text(high: high, low: low, uppercase: uppercase)
    }
}

/// SplitMix64 over a shared atomic counter: lock-free, never repeats a 128-bit value within
/// 2^64 draws, and unpredictable enough for message ids, which need to be unique, not secret.
/// Not for cryptography.
package final class UniqueBits: Sendable {
    package static let shared = UniqueBits()

    private let counter: Atomic<UInt64>

    init(seed: UInt64 = UInt64.random(in: .min ... .max)) {
        counter = Atomic(seed)
    }

    /// Two 64-bit values from two consecutive counter states.
    package func next128() -> (UInt64, UInt64) {
        let gamma = SplitMix64.gamma
        let state = counter.wrappingAdd(2 &* gamma, ordering: .relaxed).newValue
        return (SplitMix64.mix(state &- gamma), SplitMix64.mix(state))
    }
}
