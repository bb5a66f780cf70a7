/// Reads big-endian fields from bytes that arrived on a legacy connection, without copying them.
///
/// Every read checks what is left and answers `nil` when the bytes run out, so a short or
/// malformed frame can never trap: the caller decides whether "not enough bytes" means
/// "wait for more" or "the frame is broken".
package struct LegacyByteCursor {
    let bytes: UnsafeRawBufferPointer
    package private(set) var offset: Int

    package init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Bytes not read yet.
    package var remaining: Int { bytes.count - offset }

    package mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readUInt16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    package mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// The next `count` bytes as a view into the same memory.
    package mutating func readBytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes from `start` to the end (empty when `start` is past the end).
    package func legacySuffix(from start: Int) -> UnsafeRawBufferPointer {
        let start = Swift.min(Swift.max(start, 0), count)
        return UnsafeRawBufferPointer(rebasing: self[start..<count])
    }

    /// At most the first `length` bytes.
    package func legacyPrefix(_ length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[0..<Swift.min(Swift.max(length, 0), count)])
    }
}

/// Appends `value` big-endian.
package func legacyAppendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    var shift = T.bitWidth - 8
    while shift >= 0 {
        bytes.append(UInt8(truncatingIfNeeded: value >> T(shift)))
        shift -= 8
    }
}

/// The digits `lowercaseHex` writes.
private let lowercaseHexDigits: StaticString = "0123456789abcdef"

/// Lowercase hexadecimal, two digits per byte: how `PushRequest` spells a binary token.
package func lowercaseHex(_ bytes: UnsafeRawBufferPointer) -> String {
    let digits = lowercaseHexDigits
    return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
        digits.withUTF8Buffer { digit in
            var index = 0
            for byte in bytes {
                out[index] = digit[Int(byte >> 4)]
                out[index + 1] = digit[Int(byte & 0x0F)]
                index += 2
            }
        }
        return bytes.count * 2
    }
}

/// `lowercaseHex(bytes)`, given as `previous` itself when that is already the text of these
/// bytes: a connection sending to one device again makes no new string for its token.
package func lowercaseHex(_ bytes: UnsafeRawBufferPointer, reusing previous: String) -> String {
    var previous = previous
    let same = previous.withUTF8 { text -> Bool in
        guard text.count == bytes.count &* 2 else { return false }
        return lowercaseHexDigits.withUTF8Buffer { digit in
            var index = 0
            for byte in bytes {
                guard text[index] == digit[Int(byte >> 4)], text[index &+ 1] == digit[Int(byte & 0x0F)] else { return false }
                index &+= 2
            }
            return true
        }
    }
    return same ? previous : lowercaseHex(bytes)
}
