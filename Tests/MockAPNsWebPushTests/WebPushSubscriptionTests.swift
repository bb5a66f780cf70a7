import Crypto
import Foundation
import MockAPNsCore
import MockAPNsWebPush
import XCTest

/// Subscriptions as a page sees them, the keys a page may pass, and the store.
final class WebPushSubscriptionTests: XCTestCase {
    private typealias F = WebPushFixtures

    func testJSONIsWhatPushSubscriptionToJSONGives() throws {
        let setup = try F.Setup()
        let subscription = setup.subscription
        let json = subscription.json(origin: F.origin)
        XCTAssertEqual(json, #"{"endpoint":"https://web.push.apple.com/\#(subscription.id)","expirationTime":null,"keys":{"p256dh":"\#(F.base64URL(subscription.p256dh))","auth":"\#(F.base64URL(subscription.auth))"}}"#)
        // Parsed the way a page would: exactly these members, keys in base64url without padding.
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["endpoint", "expirationTime", "keys"])
        XCTAssertTrue(object["expirationTime"] is NSNull)
        let keys = try XCTUnwrap(object["keys"] as? [String: String])
        XCTAssertEqual(Set(keys.keys), ["p256dh", "auth"])
        XCTAssertEqual(F.bytes(base64URL: try XCTUnwrap(keys["p256dh"])).count, 65)
        XCTAssertEqual(F.bytes(base64URL: try XCTUnwrap(keys["auth"])).count, 16)
        XCTAssertFalse(json.contains("="))
        XCTAssertEqual(subscription.endpoint(origin: F.origin), "https://web.push.apple.com/" + subscription.id)
    }

    func testIDsAndKeysHaveTheBrowsersShapes() throws {
        let setup = try F.Setup()
        let id = setup.subscription.id
        XCTAssertEqual(id.count, 33)
        XCTAssertTrue(id.hasPrefix("Q"))
        XCTAssertTrue(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        XCTAssertEqual(setup.subscription.p256dh.first, 0x04)
        XCTAssertEqual(setup.subscription.applicationServerKey, Array(setup.vapidKey.publicKey.x963Representation))
        XCTAssertEqual(setup.subscription.state, .active)
        XCTAssertEqual(setup.subscription.createdAtMilliseconds, F.nowSeconds * 1000)
        let second = try setup.subscriptions.create(applicationServerKey: F.base64URL(setup.vapidKey.publicKey.x963Representation), now: 1)
        XCTAssertNotEqual(second.id, id)
        XCTAssertNotEqual(second.auth, setup.subscription.auth)
    }

    func testDescriptionNeverShowsThePrivateKey() throws {
        let key = P256.KeyAgreement.PrivateKey()
        let subscription = WebPushSubscription(id: "Qx", applicationServerKey: [], privateKey: key, auth: [1, 2], createdAtMilliseconds: 0)
        let secret = F.base64URL(key.rawRepresentation)
        var dumped = ""
        dump(subscription, to: &dumped)
        for text in [subscription.description, String(reflecting: subscription), dumped, subscription.json(origin: F.origin)] {
            XCTAssertFalse(text.contains(secret), text)
            XCTAssertFalse(text.contains("privateKey"), text)
        }
        XCTAssertTrue(subscription.description.contains("Qx"))
    }

    func testApplicationServerKeyForms() throws {
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        let store = WebPushSubscriptions()
        let standard = Data(point).base64EncodedString()
        for form in [F.base64URL(point), F.base64URL(point) + "=", standard, standard.replacingOccurrences(of: "=", with: ""), " \(F.base64URL(point))\n"]
            where !form.isEmpty {
            XCTAssertEqual(try store.create(applicationServerKey: form, now: 0).applicationServerKey, point, form)
        }
        let refusals: [(String, String)] = [
            ("", "got an empty string"),
            ("not base64!", "neither base64url nor base64"),
            (F.base64URL(point.prefix(33)), "got 33 bytes"),
            (F.base64URL([UInt8](repeating: 1, count: 32)), "the length of a private key"),
            (F.base64URL(point.dropFirst()), "without the leading 0x04"),
            (F.base64URL([0x05] + point.dropFirst()), "not 0x04"),
            (F.base64URL([0x04] + [UInt8](repeating: 0xFF, count: 64)), "not a point on the P-256 curve"),
            ("-----BEGIN PUBLIC KEY-----\nMFkw", "PEM"),
        ]
        for (form, words) in refusals {
            XCTAssertThrowsError(try store.create(applicationServerKey: form, now: 0), form) { error in
                let description = (error as? WebPushKeyError)?.description ?? ""
                XCTAssertTrue(description.hasPrefix("applicationServerKey: expected "), description)
                XCTAssertTrue(description.contains(words), description)
            }
        }
        XCTAssertEqual(store.all.count, 5)
    }

    func testStoreKeepsCreationOrderAndChangesState() throws {
        let store = WebPushSubscriptions()
        let key = F.base64URL(P256.Signing.PrivateKey().publicKey.x963Representation)
        let made = try (0..<4).map { try store.create(applicationServerKey: key, now: Int64($0)) }
        XCTAssertEqual(store.all.map(\.id), made.map(\.id))
        XCTAssertEqual(store.subscription(id: made[1].id), made[1])
        XCTAssertNil(store.subscription(id: "Qnone"))

        XCTAssertTrue(store.expire(id: made[0].id, at: 10))
        XCTAssertTrue(store.revoke(id: made[1].id, at: 20))
        XCTAssertEqual(store.subscription(id: made[0].id)?.state, .expired(sinceMilliseconds: 10))
        XCTAssertEqual(store.subscription(id: made[1].id)?.state, .revoked(sinceMilliseconds: 20))
        XCTAssertTrue(store.reactivate(id: made[1].id))
        XCTAssertEqual(store.subscription(id: made[1].id)?.state, .active)
        XCTAssertFalse(store.expire(id: "Qnone", at: 1))
        XCTAssertFalse(store.revoke(id: "Qnone", at: 1))
        XCTAssertFalse(store.reactivate(id: "Qnone"))

        XCTAssertTrue(store.remove(id: made[2].id))
        XCTAssertFalse(store.remove(id: made[2].id))
        XCTAssertEqual(store.all.map(\.id), [made[0].id, made[1].id, made[3].id])
        XCTAssertEqual(store.removeAll(), 3)
        XCTAssertEqual(store.all, [])
    }

    func testNewCasesInTheCoreTables() {
        XCTAssertEqual(Reason.badJwtToken.rawValue, "BadJwtToken")
        XCTAssertEqual(Reason.badJwtToken.httpStatus, 403)
        XCTAssertEqual(Reason.badJwtToken.retryAdvice, .fixRequest)
        let webPushCodes = DiagnosisCode.allCases.filter { $0.area == "webPush" }
        XCTAssertEqual(webPushCodes.count, 20)
        XCTAssertTrue(webPushCodes.allSatisfy { !$0.meaning.isEmpty })
    }
}
