import Crypto

/// The key schedule both directions share: RFC 8291 §3.4 (the ECDH secret and the auth
/// secret make the input keying material) and RFC 8188 §2.2–2.3 (the salt makes the content
/// encryption key and the nonce; each record's nonce is the base XORed with its sequence).
enum WebPushCipher {
    /// The aes128gcm header: salt (16) ‖ rs (4) ‖ idlen (1), before the key id.
    static let fixedHeaderLength = 21
    static let tagLength = 16
    /// The smallest record size RFC 8188 allows: a tag and one byte (the delimiter).
    static let minimumRecordSize = 18

    static func keys(
        sharedSecret: SharedSecret, auth: [UInt8], userAgentPublic: [UInt8], senderPublic: some Collection<UInt8>,
        salt: some Collection<UInt8>
    ) -> (contentKey: SymmetricKey, nonce: [UInt8]) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublic + Array(senderPublic)
        let inputKeyingMaterial = sharedSecret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32
        )
        let saltBytes = Array(salt)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyingMaterial, salt: saltBytes,
            info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16
        )
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyingMaterial, salt: saltBytes,
            info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12
        )
        return (contentKey, nonce.withUnsafeBytes { Array($0) })
    }

    /// The nonce of record `sequence` (0-based): the base XOR the sequence number as a 96-bit
    /// big-endian integer.
    static func nonce(_ base: [UInt8], sequence: Int) -> [UInt8] {
        var nonce = base
        var value = UInt64(truncatingIfNeeded: sequence)
        var index = nonce.count - 1
        while value != 0, index >= 0 {
            nonce[index] ^= UInt8(truncatingIfNeeded: value)
            value >>= 8
            index -= 1
        }
        return nonce
    }
}
