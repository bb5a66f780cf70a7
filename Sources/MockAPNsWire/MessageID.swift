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
    package func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch self {
        case .uuid(let bits):
            return try withUnsafeTemporaryAllocation(byteCount: UUIDBits.textLength, alignment: 1) { buffer in
                let length = bits.write(into: buffer)
                return try body(UnsafeRawBufferPointer(rebasing: buffer[..<length]))
            }
        case .text(var text):
            return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        }
    }
}

extension MessageID: Hashable {
    /// Ids are equal when their text is: a made id equals the same UUID given as text.
    @usableFromInline package static func == (lhs: MessageID, rhs: MessageID) -> Bool {
        if case .uuid(let left) = lhs, case .uuid(let right) = rhs { return left == right }
        return lhs.text == rhs.text
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}

/// A response's HEADERS as the server submits them: `:status`, the fields, and the ids
/// (`apns-id`, `apns-unique-id`) as values, sent after the first `idsAfter` fields. The
/// session writes it to the wire and its frame record keeps it as it is: neither makes a
/// list or a string per response.
///
/// A frame record holds one inline, so its layout is kept small (`JournalEventKind`'s size is
/// every event's): the status and the ids' place are stored in the bytes the ids leave over,
/// and the list comes last (in front, its spare bits no longer matched the other kinds', and
/// the event enum needed a byte more for its tag).
package struct ResponseHead: Sendable, Hashable {
    package var apnsID: MessageID?
    package var uniqueID: MessageID?
    private var statusCode: UInt16
    private var fieldsBeforeIDs: UInt8
    package var headers: [HTTPHeader]

    package init(status: Int, headers: [HTTPHeader], apnsID: MessageID? = nil, uniqueID: MessageID? = nil, idsAfter: Int = 0) {
        self.headers = headers
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.statusCode = UInt16(clamping: status)
        self.fieldsBeforeIDs = UInt8(clamping: min(max(idsAfter, 0), headers.count))
    }

    /// The `:status` (an HTTP status, three digits).
    package var status: Int {
        get { Int(statusCode) }
        set { statusCode = UInt16(clamping: newValue) }
    }

    /// How many of `headers` go out before the ids (at most 255).
    package var idsAfter: Int {
        get { Int(fieldsBeforeIDs) }
        set { fieldsBeforeIDs = UInt8(clamping: min(max(newValue, 0), headers.count)) }
    }

    /// One field as sent: text, or an id given as its value.
    package enum Field: Equatable {
        case text(name: String, value: String)
        case id(name: String, value: MessageID)
    }

    /// The field at `index` in the order sent (`0 ..< fieldCount`): `:status`, the first
    /// `idsAfter` of `headers`, `apns-id`, `apns-unique-id`, the rest of `headers`. Read by
    /// index, not through closures: a closure writing into its caller's buffers would make
    /// those buffers heap boxes, on every response.
    package func field(at index: Int) -> Field {
        if index == 0 { return .text(name: ":status", value: String(status)) }
        let split = min(idsAfter, headers.count)
        var position = index - 1
        if position < split { return .text(name: headers[position].name, value: headers[position].value) }
        position -= split
        if let apnsID {
            if position == 0 { return .id(name: "apns-id", value: apnsID) }
            position -= 1
        }
        if let uniqueID {
            if position == 0 { return .id(name: "apns-unique-id", value: uniqueID) }
            position -= 1
        }
        let header = headers[split + position]
        return .text(name: header.name, value: header.value)
    }

    /// Every field in the order sent, `:status` first, the ids as text.
    package var fields: [HTTPHeader] {
        (0..<fieldCount).map { index in
            switch field(at: index) {
            case .text(let name, let value): HTTPHeader(name: name, value: value)
            case .id(let name, let value): HTTPHeader(name: name, value: value.text)
            }
        }
    }

    /// The number of fields, `:status` included.
    package var fieldCount: Int {
        1 + headers.count + (apnsID == nil ? 0 : 1) + (uniqueID == nil ? 0 : 1)
    }
}
