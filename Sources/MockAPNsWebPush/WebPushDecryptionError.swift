/// Why an aes128gcm body could not be read, one case per cause, so the diagnosis can say what
/// the sender most likely did wrong. Records are counted from 0; descriptions count from 1.
package enum WebPushDecryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the header needs: 21 (salt, rs, idlen), plus idlen for the key id.
    case headerTooShort(length: Int, needed: Int)
    /// The key id is not 65 bytes: no aes128gcm header (RFC 8291 puts the sender's 65-byte
    /// public key there).
    case keyIDLength(Int)
    /// The header's record size is below RFC 8188's minimum of 18.
    case recordSizeTooSmall(Int)
    /// The key id is 65 bytes but not a point on P-256.
    case keyIDNotAPoint
    /// The key id is the subscription's own `p256dh`, not the sender's ephemeral key.
    case keyIDIsSubscriptionKey
    /// A header and nothing after it.
    case noRecords
    /// A record shorter than a tag and a delimiter (17 bytes).
    case recordTooShort(record: Int, length: Int)
    /// AES-GCM's tag does not match.
    case authenticationFailed(record: Int)
    /// The record has no padding delimiter (0x01 or 0x02) at all.
    case delimiterMissing(record: Int, lastByte: UInt8?)
    /// A delimiter is followed by bytes that are not zero.
    case nonZeroPadding(record: Int)
    /// The last record ends with 0x01 ("more records follow").
    case lastRecordNotFinal(record: Int)
    /// A record before the last ends with 0x02 ("this is the last record").
    case finalDelimiterTooEarly(record: Int, records: Int)

    package var description: String {
        switch self {
        case .headerTooShort(let length, let needed):
            return "the body is \(length) bytes, shorter than the \(needed) an aes128gcm header needs (salt, record size, key id): "
                + "the body was cut short, or it was not encrypted with aes128gcm (the draft aesgcm encoding has no such header)"
        case .keyIDLength(let length):
            return "the header's key id length is \(length), not 65 (the sender's uncompressed P-256 public key, RFC 8291 §4): "
                + "the body has no aes128gcm header; it was most likely encrypted with aesgcm (draft) rather than aes128gcm, "
                + "or the header was left out"
        case .recordSizeTooSmall(let size):
            return "the header's record size is \(size); RFC 8188 requires at least 18 (a 16-byte tag and a delimiter)"
        case .keyIDNotAPoint:
            return "the header's key id is 65 bytes but not a point on the P-256 curve: it should be the sender's ephemeral ECDH public key"
        case .keyIDIsSubscriptionKey:
            return "the header's key id is the subscription's own p256dh: it must be the sender's ephemeral ECDH public key (RFC 8291 §4), "
                + "not the user agent's"
        case .noRecords:
            return "the body is an aes128gcm header with no records after it"
        case .recordTooShort(let record, let length):
            return "record \(record + 1) is \(length) bytes, shorter than a 16-byte tag and a delimiter: the body was cut short"
        case .authenticationFailed(let record):
            if record == 0 {
                return "the authentication tag does not match: the body was encrypted for another subscription's keys (p256dh and auth), "
                    + "with the wrong auth secret, or with another key schedule (aesgcm's), or it was changed in transit"
            }
            return "record \(record + 1)'s authentication tag does not match although the records before it decrypted: "
                + "the keys are right, so the body was cut or changed, or its records are not the header's record size each"
        case .delimiterMissing(let record, let lastByte):
            let ending = lastByte.map { "ends with 0x" + String($0, radix: 16, uppercase: true) } ?? "is all zeros"
            return "record \(record + 1) has no padding delimiter (it \(ending)): the sender did not append 0x02 "
                + "after the last record's data (0x01 after the others), as RFC 8188 §2 requires"
        case .nonZeroPadding(let record):
            return "record \(record + 1)'s padding after its delimiter is not all zeros (RFC 8188 §2 pads with zeros)"
        case .lastRecordNotFinal(let record):
            return "the last record (\(record + 1)) ends with delimiter 0x01, meaning more records follow: "
                + "the body was cut short, or the sender marked its last record wrong (0x02 ends the last one)"
        case .finalDelimiterTooEarly(let record, let records):
            return "record \(record + 1) of \(records) ends with delimiter 0x02, which only the last record may carry: "
                + "the sender's record size is not the header's, or bytes were appended after the message"
        }
    }
}
