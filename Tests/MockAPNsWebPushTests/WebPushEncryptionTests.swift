import Crypto
import MockAPNsCore
import MockAPNsWebPush
import XCTest

/// aes128gcm as RFC 8291 and RFC 8188 define it: the RFC's example both ways, round trips,
/// and every cause a body cannot be read for.
final class WebPushEncryptionTests: XCTestCase {
    private typealias F = WebPushFixtures

    // RFC 8291 §5 / Appendix A.
    private static let plaintext = "When I grow up, I want to be a watermelon"
    private static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    private static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    private static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    private static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    private static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    private static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    private func rfcSubscription() throws -> WebPushSubscription {
        let key = try P256.KeyAgreement.PrivateKey(rawRepresentation: F.bytes(base64URL: Self.uaPrivate))
        return WebPushSubscription(
            id: "Qrfc8291", applicationServerKey: Array(P256.Signing.PrivateKey().publicKey.x963Representation),
            privateKey: key, auth: F.bytes(base64URL: Self.authSecret), createdAtMilliseconds: 0
        )
    }

    private func subscription() -> WebPushSubscription {
        WebPushSubscription(
            id: "Qtest", applicationServerKey: Array(P256.Signing.PrivateKey().publicKey.x963Representation),
            privateKey: P256.KeyAgreement.PrivateKey(), auth: (0..<16).map { _ in UInt8.random(in: 0...255) },
            createdAtMilliseconds: 0
        )
    }

    func testDecryptsTheRFC8291Example() throws {
        let subscription = try rfcSubscription()
        XCTAssertEqual(F.base64URL(subscription.p256dh), Self.uaPublic)
        let plaintext = try subscription.decrypt(F.bytes(base64URL: Self.body)).get()
        XCTAssertEqual(String(decoding: plaintext, as: UTF8.self), Self.plaintext)
    }

    func testEncryptingWithTheRFCsSenderKeyAndSaltGivesItsBody() throws {
        let body = try WebPushEncryptor.encrypt(
            Array(Self.plaintext.utf8), p256dh: F.bytes(base64URL: Self.uaPublic), auth: F.bytes(base64URL: Self.authSecret),
            salt: F.bytes(base64URL: Self.salt),
            senderKey: P256.KeyAgreement.PrivateKey(rawRepresentation: F.bytes(base64URL: Self.asPrivate))
        )
        XCTAssertEqual(F.base64URL(body), Self.body)
    }

    func testRoundTripsWithPaddingAndAcrossRecords() throws {
        let subscription = subscription()
        let text = Array("Declarative or not, this message spans several records.".utf8)
        let cases: [(recordSize: Int, padding: Int, records: Int)] = [
            (4096, 0, 1), (4096, 100, 1), (18, 0, text.count), (30, 7, (text.count + 7 + 12) / 13),
            (17 + text.count, 0, 1), (17 + text.count, 1, 2),
        ]
        for (recordSize, padding, records) in cases {
            let body = try WebPushEncryptor.encrypt(text, p256dh: subscription.p256dh, auth: subscription.auth,
                                                    recordSize: recordSize, paddingLength: padding)
            let header = 86
            let expectedLength = header + (text.count + padding) + records * 17
            XCTAssertEqual(body.count, expectedLength, "rs \(recordSize), padding \(padding)")
            XCTAssertEqual(try subscription.decrypt(body).get(), text, "rs \(recordSize), padding \(padding)")
        }
        // An empty message is one record holding only the delimiter.
        let empty = try WebPushEncryptor.encrypt([], p256dh: subscription.p256dh, auth: subscription.auth)
        XCTAssertEqual(try subscription.decrypt(empty).get(), [])
    }

    func testEachCauseOfAFailedDecryptionIsNamed() throws {
        let subscription = subscription()
        let other = self.subscription()
        let text = Array(#"{"title":"hi"}"#.utf8)
        let good = try WebPushEncryptor.encrypt(text, p256dh: subscription.p256dh, auth: subscription.auth)

        // Wrong auth secret, and another subscription's keys.
        var wrongAuth = subscription.auth
        wrongAuth[0] ^= 0xFF
        let forWrongAuth = try WebPushEncryptor.encrypt(text, p256dh: subscription.p256dh, auth: wrongAuth)
        XCTAssertEqual(subscription.decrypt(forWrongAuth), .failure(.authenticationFailed(record: 0)))
        let forOther = try WebPushEncryptor.encrypt(text, p256dh: other.p256dh, auth: other.auth)
        XCTAssertEqual(subscription.decrypt(forOther), .failure(.authenticationFailed(record: 0)))
        XCTAssertTrue(WebPushDecryptionError.authenticationFailed(record: 0).description.contains("another subscription's keys"))

        // A corrupted later record: the keys were right.
        var multi = try WebPushEncryptor.encrypt(text, p256dh: subscription.p256dh, auth: subscription.auth, recordSize: 20)
        multi[86 + 20 + 2] ^= 1
        XCTAssertEqual(subscription.decrypt(multi), .failure(.authenticationFailed(record: 1)))

        // Truncated header, and a header with nothing after it.
        XCTAssertEqual(subscription.decrypt(Array(good.prefix(10))), .failure(.headerTooShort(length: 10, needed: 21)))
        XCTAssertEqual(subscription.decrypt(Array(good.prefix(50))), .failure(.headerTooShort(length: 50, needed: 86)))
        XCTAssertEqual(subscription.decrypt(Array(good.prefix(86))), .failure(.noRecords))
        XCTAssertEqual(subscription.decrypt(Array(good.prefix(86 + 10))), .failure(.recordTooShort(record: 0, length: 10)))

        // Record size below 18.
        var smallRecords = good
        smallRecords[16...19] = [0, 0, 0, 17]
        XCTAssertEqual(subscription.decrypt(smallRecords), .failure(.recordSizeTooSmall(17)))

        // The key id is the subscription's own key, or not a point.
        var ownKey = good
        ownKey.replaceSubrange(21..<86, with: subscription.p256dh)
        XCTAssertEqual(subscription.decrypt(ownKey), .failure(.keyIDIsSubscriptionKey))
        var notAPoint = good
        notAPoint.replaceSubrange(22..<86, with: repeatElement(0xFF, count: 64))
        XCTAssertEqual(subscription.decrypt(notAPoint), .failure(.keyIDNotAPoint))

        // An aesgcm-shaped body: AES-GCM ciphertext of a 2-byte padding length and the text,
        // with no aes128gcm header.
        let draftKey = SymmetricKey(data: [UInt8](repeating: 7, count: 16))
        let sealed = try AES.GCM.seal([0, 0] + text, using: draftKey, nonce: AES.GCM.Nonce(data: [UInt8](repeating: 1, count: 12)))
        let aesgcm = Array(sealed.ciphertext) + Array(sealed.tag)
        XCTAssertNotEqual(aesgcm[20], 65)
        guard case .failure(let error) = subscription.decrypt(aesgcm), case .keyIDLength = error else {
            return XCTFail("an aesgcm body should fail on its key id length")
        }
        XCTAssertTrue(error.description.contains("encrypted with aesgcm (draft) rather than aes128gcm"), error.description)
    }

    func testDelimiterAndPaddingMistakesAreNamed() throws {
        let subscription = subscription()
        let sender = P256.KeyAgreement.PrivateKey()
        let salt = [UInt8](repeating: 3, count: 16)
        let text = Array("hello".utf8)
        /// A body whose records hold exactly `records` (delimiter and padding included), made
        /// by encrypting one record at a time with the same keys and patching the sequence in.
        func body(_ records: [[UInt8]], recordSize: Int) throws -> [UInt8] {
            // Encrypt a single record whose plaintext is records[i] minus its last byte, then
            // rebuild: WebPushEncryptor only writes valid records, so use AES-GCM directly.
            let sharedSecret = try sender.sharedSecretFromKeyAgreement(
                with: P256.KeyAgreement.PublicKey(x963Representation: subscription.p256dh))
            let senderPublic = Array(sender.publicKey.x963Representation)
            let ikm = sharedSecret.hkdfDerivedSymmetricKey(
                using: SHA256.self, salt: subscription.auth,
                sharedInfo: Array("WebPush: info".utf8) + [0] + subscription.p256dh + senderPublic, outputByteCount: 32)
            let cek = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
            let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
                .withUnsafeBytes { Array($0) }
            var out = salt + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: recordSize >> $0) } + [65] + senderPublic
            for (index, record) in records.enumerated() {
                var recordNonce = nonce
                recordNonce[11] ^= UInt8(index)
                let sealed = try AES.GCM.seal(record, using: cek, nonce: AES.GCM.Nonce(data: recordNonce))
                out += Array(sealed.ciphertext) + Array(sealed.tag)
            }
            return out
        }
        // The hand-made writer agrees with the encryptor on a valid body.
        XCTAssertEqual(try subscription.decrypt(body([text + [2]], recordSize: 4096)).get(), text)
        XCTAssertEqual(try subscription.decrypt(body([text + [2, 0, 0]], recordSize: 4096)).get(), text)

        XCTAssertEqual(subscription.decrypt(try body([text], recordSize: 4096)), .failure(.delimiterMissing(record: 0, lastByte: UInt8(ascii: "o"))))
        XCTAssertEqual(subscription.decrypt(try body([[0, 0, 0]], recordSize: 4096)), .failure(.delimiterMissing(record: 0, lastByte: nil)))
        XCTAssertEqual(subscription.decrypt(try body([text + [1]], recordSize: 4096)), .failure(.lastRecordNotFinal(record: 0)))
        XCTAssertEqual(subscription.decrypt(try body([text + [2, 0xFF, 0xFF]], recordSize: 4096)), .failure(.nonZeroPadding(record: 0)))
        // Two records of rs = 16 + 6: the first marked final.
        XCTAssertEqual(subscription.decrypt(try body([text + [2], text + [2]], recordSize: 22)),
                       .failure(.finalDelimiterTooEarly(record: 0, records: 2)))
        XCTAssertTrue(WebPushDecryptionError.nonZeroPadding(record: 0).description.contains("not all zeros"))
        XCTAssertTrue(WebPushDecryptionError.delimiterMissing(record: 0, lastByte: 0x7D).description.contains("0x7D"))
    }

    func testEncryptorRefusesArgumentsThatCannotMakeABody() {
        let subscription = subscription()
        XCTAssertThrowsError(try WebPushEncryptor.encrypt([1], p256dh: subscription.p256dh, auth: subscription.auth, recordSize: 17))
        XCTAssertThrowsError(try WebPushEncryptor.encrypt([1], p256dh: subscription.p256dh, auth: [1, 2, 3]))
        XCTAssertThrowsError(try WebPushEncryptor.encrypt([1], p256dh: [4, 1, 2], auth: subscription.auth))
        XCTAssertThrowsError(try WebPushEncryptor.encrypt([1], p256dh: subscription.p256dh, auth: subscription.auth, paddingLength: -1))
    }
}
