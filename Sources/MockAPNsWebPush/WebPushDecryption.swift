import Crypto

/// Reads an aes128gcm body (RFC 8188) with a subscription's keys (RFC 8291), as the browser
/// does, checking every header field and record so a failure names its cause.
enum WebPushDecryption {
    static func decrypt(
        _ body: [UInt8], privateKey: P256.KeyAgreement.PrivateKey, p256dh: [UInt8], auth: [UInt8]
    ) -> Result<[UInt8], WebPushDecryptionError> {
        let fixed = WebPushCipher.fixedHeaderLength
        guard body.count >= fixed else { return .failure(.headerTooShort(length: body.count, needed: fixed)) }
        let salt = body[0..<16]
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIDLength = Int(body[20])
        // The key id's length first: a body without an aes128gcm header (aesgcm) shows here.
        guard keyIDLength == 65 else { return .failure(.keyIDLength(keyIDLength)) }
        guard recordSize >= WebPushCipher.minimumRecordSize else { return .failure(.recordSizeTooSmall(recordSize)) }
        let headerLength = fixed + keyIDLength
        guard body.count >= headerLength else { return .failure(.headerTooShort(length: body.count, needed: headerLength)) }
        let keyID = body[fixed..<headerLength]
        guard !keyID.elementsEqual(p256dh) else { return .failure(.keyIDIsSubscriptionKey) }
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: keyID),
              let sharedSecret = try? privateKey.sharedSecretFromKeyAgreement(with: senderKey) else {
            return .failure(.keyIDNotAPoint)
        }
        let (contentKey, baseNonce) = WebPushCipher.keys(
            sharedSecret: sharedSecret, auth: auth, userAgentPublic: p256dh, senderPublic: keyID, salt: salt
        )
        guard headerLength < body.count else { return .failure(.noRecords) }

        // Records are rs bytes each but the last, which may be shorter.
        let recordBytes = body.count - headerLength
        let records = recordBytes / recordSize + (recordBytes % recordSize == 0 ? 0 : 1)
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(recordBytes)
        var offset = headerLength
        for record in 0..<records {
            let remaining = body.count - offset
            let isLast = record == records - 1
            let length = min(remaining, recordSize)
            guard length > WebPushCipher.tagLength else { return .failure(.recordTooShort(record: record, length: length)) }
            let ciphertext = body[offset..<(offset + length - WebPushCipher.tagLength)]
            let tag = body[(offset + length - WebPushCipher.tagLength)..<(offset + length)]
            guard let nonce = try? AES.GCM.Nonce(data: WebPushCipher.nonce(baseNonce, sequence: record)),
                  let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag),
                  let opened = try? AES.GCM.open(box, using: contentKey) else {
                return .failure(.authenticationFailed(record: record))
            }
            let bytes = Array(opened)
            // The delimiter is the last byte that is not zero (RFC 8188 §2).
            guard let delimiterIndex = bytes.lastIndex(where: { $0 != 0 }) else {
                return .failure(.delimiterMissing(record: record, lastByte: nil))
            }
            switch bytes[delimiterIndex] {
            case 2:
                guard isLast else { return .failure(.finalDelimiterTooEarly(record: record, records: records)) }
            case 1:
                guard !isLast else { return .failure(.lastRecordNotFinal(record: record)) }
            default:
                // A 0x01 or 0x02 earlier on, followed by other bytes, reads as a delimiter with
                // non-zero padding; with none at all, the delimiter was left out.
                if bytes[..<delimiterIndex].contains(where: { $0 == 1 || $0 == 2 }) {
                    return .failure(.nonZeroPadding(record: record))
                }
                return .failure(.delimiterMissing(record: record, lastByte: bytes[delimiterIndex]))
            }
            plaintext.append(contentsOf: bytes[..<delimiterIndex])
            offset += length
        }
        return .success(plaintext)
    }
}
