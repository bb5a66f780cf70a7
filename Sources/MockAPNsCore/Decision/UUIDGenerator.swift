import MockAPNsWire
import Synchronization

/// Random (version 4) UUIDs, for generated `apns-id` and `apns-unique-id` values.
///
/// The bits come from `UniqueBits`, a fast generator seeded once from the system's
/// randomness: asking the kernel for 16 bytes per id costs a system call each time, more than
/// the rest of a request's decision. An id stays bits (`MessageID.uuid`) until its text is
/// read; the answer's header is written from them.
package struct UUIDGenerator: Sendable {
    /// The letter case of the hex digits.
    package var letterCase: UUIDLetterCase

    package init(letterCase: UUIDLetterCase) {
        self.letterCase = letterCase
    }

    /// A new random UUID such as `8f0c5ab2-4d1e-4c8a-9b7e-2f3a4b5c6d7e`.
    package func next() -> MessageID {
        let (high, low) = UniqueBits.shared.next128()
        return .uuid(Self.version4(high: high, low: low, uppercase: letterCase == .uppercase))
    }

    /// 128 bits as a version-4, RFC 4122-variant UUID.
    static func version4(high: UInt64, low: UInt64, uppercase: Bool) -> UUIDBits {
        // Version 4 in the high nibble of byte 6; variant 10xx in the top bits of byte 8.
        let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return UUIDBits(high: high, low: low, uppercase: uppercase)
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
