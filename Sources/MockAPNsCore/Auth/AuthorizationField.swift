/// An `Authorization` field value taken apart (RFC 9110 §11.6.2): `scheme [ credentials ]`,
/// with HTTP's optional whitespace (spaces and tabs) around and between. The one parser of
/// that field: provider tokens (`bearer`), VAPID (`vapid t=…, k=…`), the control API's token
/// and the recording of the field read it through here. Works on UTF-8 bytes: it runs on
/// every request.
package struct AuthorizationField: Sendable {
    /// The scheme as sent (compare it with ``hasScheme(_:)``: schemes ignore case).
    package let scheme: Substring
    /// Everything after the scheme and its blanks, without trailing blanks; empty when none.
    package let credentials: Substring

    /// `value` taken apart; `nil` when it is empty or only blanks.
    package init?(_ value: Substring) {
        let trimmed = Self.trimmingBlanks(value)
        guard !trimmed.isEmpty else { return nil }
        let schemeEnd = trimmed.utf8.firstIndex(where: Self.isBlank) ?? trimmed.endIndex
        scheme = trimmed[..<schemeEnd]
        credentials = Self.trimmingBlanks(trimmed[schemeEnd...])
    }

    /// Whether the scheme is `lowercase` in any mix of ASCII case (and nothing Unicode folds
    /// into it, as a `lowercased()` comparison would let through).
    package func hasScheme(_ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return scheme.utf8.elementsEqual(expected) { byte, lower in
            (0x41...0x5A).contains(byte) ? byte | 0x20 == lower : byte == lower
        }
    }

    /// Whether the credentials hold a blank: more than one word (`bearer` takes one).
    package var credentialsHaveBlank: Bool {
        credentials.utf8.withContiguousStorageIfAvailable { $0.contains(where: Self.isBlank) }
            ?? credentials.utf8.contains(where: Self.isBlank)
    }

    /// The credentials' comma-separated `name=value` parameters (RFC 9110's auth-param, as
    /// VAPID sends `t=` and `k=`), names lowercased, in order; items without `=` are left out.
    package var parameters: [(name: String, value: Substring)] {
        credentials.split(separator: ",").compactMap { item in
            let trimmed = Self.trimmingBlanks(item)
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            let name = Self.trimmingBlanks(trimmed[..<equals]).lowercased()
            return (name, Self.trimmingBlanks(trimmed[trimmed.index(after: equals)...]))
        }
    }

    package static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// `text` without leading and trailing spaces and tabs.
    private static func trimmingBlanks(_ text: Substring) -> Substring {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isBlank($0) }),
              let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return text[text.endIndex...]
        }
        // `last` is the final byte of a scalar (a blank or the end follows it), so the index
        // after it is a valid boundary.
        return text[first..<bytes.index(after: last)]
    }
}
