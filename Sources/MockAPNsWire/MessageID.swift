/// A canonical UUID as its 128 bits and the case of its letters: the 36-byte text in 17 bytes,
/// given back byte for byte (`text`). Only a UUID whose letters are all one case has one: a
/// mixed-case one cannot be written back from the bits, so it stays text.
@usableFromInline package struct UUIDBits: Sendable, Hashable {
    package var high: UInt64
    package var low: UInt64
    package var uppercase: Bool

    /// The length of the canonical text in bytes.
    package static let textLength = 36

    package init(high: UInt64, low: UInt64, uppercase: Bool) {
        self.high = high
        self.low = low
        self.uppercase = uppercase
    }

    /// The canonical text, in the letter case it was read in.
    package var text: String {
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            write(into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Writes the canonical text at the start of `buffer`, and returns its length (0 when
    /// `buffer` is shorter than that): a table lookup per nibble, the hyphens at their fixed
    /// places (after nibbles 8, 12, 16 and 20), no check per character.
    package func write(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard buffer.count >= Self.textLength else { return 0 }
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            var output = 0
            for nibbleIndex in 0..<32 {
                if nibbleIndex == 8 || nibbleIndex == 12 || nibbleIndex == 16 || nibbleIndex == 20 {
                    buffer[output] = UInt8(ascii: "-")
                    output &+= 1
                }
                let word = nibbleIndex < 16 ? high : low
                let shift = UInt64(60 &- 4 &* (nibbleIndex & 15))
                buffer[output] = digits[Int((word >> shift) & 0xF)]
                output &+= 1
            }
        }
        return Self.textLength
    }
}

/// An `apns-id` or `apns-unique-id` as an answer carries it: the text a client (or a
/// scenario) gave, or an id the server made, kept as its bits. A made id becomes text only
/// where text is read (a JSON view, a public record); the answer's header and the journal
/// are written from the bits, so answering does not make a string per id.
@usableFromInline package enum MessageID: Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// An id the server made (or one read back from the journal in that form).
    case uuid(UUIDBits)
    /// An id as given.
    case text(String)

    @usableFromInline package init(stringLiteral value: String) {
        self = .text(value)
    }

    /// The id as text.
    package var text: String {
        switch self {
        case .uuid(let bits): bits.text
        case .text(let text): text
        }
    }

    @usableFromInline package var description: String { text }

    /// Calls `body` with the id's UTF-8 bytes, without making a string of a made id.
    package func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch self {
        case .uuid(let bits):
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: UUIDBits.textLength) { buffer in
                let length = bits.write(into: UnsafeMutableRawBufferPointer(buffer))
                return try body(UnsafeBufferPointer(rebasing: buffer[..<length]))
            }
        case .text(var text):
            return try text.withUTF8(body)
        }
    }
}

extension MessageID: Hashable {
    /// Ids are equal when their bytes on the wire are: a made id equals the same UUID given
    /// as text (in the same letter case).
    @usableFromInline package static func == (lhs: MessageID, rhs: MessageID) -> Bool {
        if case .uuid(let left) = lhs, case .uuid(let right) = rhs { return left == right }
        return lhs.withUTF8 { left in rhs.withUTF8 { right in left.sameBytes(as: right) } }
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        // The bytes equality compares, without making a string of a made id.
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
