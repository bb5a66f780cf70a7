#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Direct access to the UTF-8 bytes of header values.
///
/// The request rules run for every push, so they scan raw bytes: iterating a `String`'s
/// `utf8` view element by element costs several times more than walking a buffer. Native
/// strings are read in place and short ("small") strings from a stack copy; only a bridged
/// string would be copied to the heap. (`utf8.withContiguousStorageIfAvailable` looked
/// equivalent but measured several times slower on small strings.)
extension String {
    @inlinable @inline(__always)
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var copy = self
        return copy.withUTF8(body)
    }
}

extension String {
    /// The string with its ASCII letters in lowercase and nothing else touched (field names
    /// and device tokens are ASCII: nothing else has a case there); itself, no new string,
    /// when it has no uppercase letter, as every HTTP/2 field name and nearly every token has.
    package var asciiLowercased: String {
        func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        // Over the contiguous bytes when the string has them, else the bytes one by one; not
        // `withUTF8`, which first copies a string whose bytes are not contiguous (it cost a
        // quarter of an allocation per push, for the registry's token).
        let hasUppercase = utf8.withContiguousStorageIfAvailable { $0.contains(where: isUppercase) }
            ?? utf8.contains(where: isUppercase)
        guard hasUppercase else { return self }
        return String(decoding: utf8.map { isUppercase($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

extension Substring {
    @inlinable @inline(__always)
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var copy = self
        return copy.withUTF8(body)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the two buffers hold the same bytes. memcmp: header values are compared for
    /// every request (a provider token is some 200 bytes), and the generic element-by-element
    /// comparison measured several times slower.
    @inlinable @inline(__always)
    package func sameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let left = baseAddress, let right = other.baseAddress else { return true }
        return memcmp(left, right, count) == 0
    }

    /// Whether the buffer starts with the bytes of `prefix`.
    @inlinable @inline(__always)
    package func hasPrefix(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        count >= prefix.count && UnsafeBufferPointer(rebasing: self[..<prefix.count]).sameBytes(as: prefix)
    }

    /// Whether the buffer holds exactly the bytes of `text`.
    @inlinable @inline(__always)
    package func equals(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && matches(text, at: 0)
    }

    /// Whether the buffer ends with the bytes of `suffix`.
    @inlinable @inline(__always)
    package func hasSuffix(_ suffix: StaticString) -> Bool {
        count >= suffix.utf8CodeUnitCount && matches(suffix, at: count - suffix.utf8CodeUnitCount)
    }

    /// Whether the buffer starts with the bytes of `prefix`.
    @inlinable @inline(__always)
    package func hasPrefix(_ prefix: StaticString) -> Bool {
        count >= prefix.utf8CodeUnitCount && matches(prefix, at: 0)
    }

    /// Whether the bytes of `text` appear at `offset`; the caller checked they fit.
    @inlinable @inline(__always)
    func matches(_ text: StaticString, at offset: Int) -> Bool {
        let expected = text.utf8Start
        for index in 0..<text.utf8CodeUnitCount where self[offset + index] != expected[index] {
            return false
        }
        return true
    }
}
