import Crypto

/// Encrypts a push message as an application server does (RFC 8291 §4 keys, RFC 8188
/// aes128gcm records): for this project's tests and for Swift users sending to the mock.
package enum WebPushEncryptor {
    /// Why the arguments cannot make a body.
    package struct EncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// The aes128gcm body of `plaintext` for the subscription keys `p256dh` and `auth`.
    ///
    /// One record when `plaintext` and `paddingLength` zeros fit in `recordSize - 17` bytes
    /// (a 16-byte tag and the delimiter take the rest); otherwise as many full records as
    /// needed, each ending with delimiter 0x01, the last with 0x02. `salt` and `senderKey`
    /// default to fresh random ones; give them to reproduce a known body (RFC 8291 §5).
    package static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], recordSize: Int = 4096, paddingLength: Int = 0,
        salt: [UInt8]? = nil, senderKey: P256.KeyAgreement.PrivateKey? = nil
    ) throws -> [UInt8] {
        guard recordSize >= WebPushCipher.minimumRecordSize, recordSize <= Int(UInt32.max) else {
            throw EncryptionError(description: "recordSize \(recordSize) is outside 18...\(UInt32.max) (RFC 8188)")
        }
        guard paddingLength >= 0 else { throw EncryptionError(description: "paddingLength \(paddingLength) is negative") }
        guard auth.count == 16 else { throw EncryptionError(description: "auth is \(auth.count) bytes; RFC 8291 uses 16") }
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        guard salt.count == 16 else { throw EncryptionError(description: "salt is \(salt.count) bytes; RFC 8188 uses 16") }
        let receiverKey: P256.KeyAgreement.PublicKey
        do {
            receiverKey = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        } catch {
            throw EncryptionError(description: "p256dh is not a 65-byte uncompressed P-256 point")
        }
        let senderKey = senderKey ?? P256.KeyAgreement.PrivateKey()
        let senderPublic = Array(senderKey.publicKey.x963Representation)
        let sharedSecret = try senderKey.sharedSecretFromKeyAgreement(with: receiverKey)
        let (contentKey, baseNonce) = WebPushCipher.keys(
            sharedSecret: sharedSecret, auth: auth, userAgentPublic: p256dh, senderPublic: senderPublic, salt: salt
        )

        let (total, overflow) = plaintext.count.addingReportingOverflow(paddingLength)
        guard !overflow else { throw EncryptionError(description: "paddingLength \(paddingLength) is too large") }
        // Each record carries `capacity` bytes of data or padding, plus the delimiter and tag.
        let capacity = recordSize - WebPushCipher.tagLength - 1
        let records = max(1, total / capacity + (total % capacity == 0 ? 0 : 1))

        var body = salt
        body.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: recordSize >> $0) })
        body.append(UInt8(senderPublic.count))
        body.append(contentsOf: senderPublic)
        for record in 0..<records {
            let start = record * capacity
            let end = min(total, start + capacity)
            let dataEnd = min(plaintext.count, end)
            var content = start < dataEnd ? Array(plaintext[start..<dataEnd]) : []
            content.append(record == records - 1 ? 2 : 1)
            content.append(contentsOf: repeatElement(0, count: end - max(start, dataEnd)))
            let nonce = try AES.GCM.Nonce(data: WebPushCipher.nonce(baseNonce, sequence: record))
            let sealed = try AES.GCM.seal(content, using: contentKey, nonce: nonce)
            body.append(contentsOf: sealed.ciphertext)
            body.append(contentsOf: sealed.tag)
        }
        return body
    }
}
