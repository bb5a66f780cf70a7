/// Parsers for the values of Apple's scalar request headers. Each returns `nil` for a value
/// APNs would refuse; the validator pairs that with the header's `Reason`.
package enum HeaderValueSyntax {
    /// `apns-expiration`: a non-negative decimal number of seconds since 1970, digits only
    /// (no sign, no spaces, no fraction). Leading zeros are tolerated. Values that do not fit
    /// in 64 bits are refused. A date in the past is well-formed (APNs treats it like `0`).
    package static func expiration(_ text: String) -> Int64? {
        text.withUTF8Bytes(expiration)
    }

    /// The same, on a value's bytes as received.
    package static func expiration(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        return value
    }

    /// `apns-priority`: exactly `1`, `5` or `10`. Spellings such as `05` or ` 10` are refused
    /// (Apple documents only the three values).
    package static func priority(_ text: String) -> Priority? {
        text.withUTF8Bytes(priority)
    }

    /// The same, on a value's bytes as received.
    package static func priority(_ bytes: UnsafeBufferPointer<UInt8>) -> Priority? {
        switch bytes.count {
        case 1 where bytes[0] == UInt8(ascii: "1"): .powerFirst
        case 1 where bytes[0] == UInt8(ascii: "5"): .powerAware
        case 2 where bytes[0] == UInt8(ascii: "1") && bytes[1] == UInt8(ascii: "0"): .immediate
        default: nil
        }
    }

    /// `apns-push-type`: one of Apple's values, exactly as Apple spells them (lowercase).
    static func pushType(_ text: String) -> PushType? {
        PushType(rawValue: text)
    }

    /// The same, on a value's bytes as received: compared with each type's name, no string made.
    static func pushType(_ bytes: UnsafeBufferPointer<UInt8>) -> PushType? {
        PushType.allCases.first { type in type.rawValue.withUTF8Bytes { $0.sameBytes(as: bytes) } }
    }
}
