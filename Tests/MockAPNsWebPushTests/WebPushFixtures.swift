import Crypto
import Foundation
import MockAPNsCore
import MockAPNsWebPush
import MockAPNsWire

/// What the web push tests share: base64url both ways, a VAPID key with a subscription made
/// for it, and well-formed requests to change one thing at a time.
enum WebPushFixtures {
    static let origin = "https://web.push.apple.com"
    /// 2023-11-14T22:13:20Z, in seconds.
    static let nowSeconds: Int64 = 1_700_000_000

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: String) -> [UInt8] {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) } ?? []
    }

    /// A sender's VAPID key, a store holding one subscription made with it, and a decider.
    struct Setup {
        let vapidKey = P256.Signing.PrivateKey()
        let subscriptions = WebPushSubscriptions()
        let clock = ServerClock(fixedAt: WebPushFixtures.nowSeconds * 1000)
        let subscription: WebPushSubscription

        init() throws {
            subscription = try subscriptions.create(
                applicationServerKey: WebPushFixtures.base64URL(vapidKey.publicKey.x963Representation),
                now: WebPushFixtures.nowSeconds * 1000
            )
        }

        func decider(_ options: WebPushOptions = WebPushOptions()) -> WebPushDecider {
            WebPushDecider(subscriptions: subscriptions, options: options, clock: clock)
        }

        /// `vapid t=…, k=…` signed with the subscription's key, valid for 12 hours.
        func authorization(
            key: P256.Signing.PrivateKey? = nil, audience: String = WebPushFixtures.origin,
            subject: String? = "mailto:push@example.com", expiration: Int64 = WebPushFixtures.nowSeconds + 43_200
        ) -> String {
            VAPIDSigner.authorization(key: key ?? vapidKey, audience: audience, subject: subject, expiration: expiration)
        }

        /// `plaintext` encrypted for the subscription.
        func body(_ plaintext: String) throws -> [UInt8] {
            try WebPushEncryptor.encrypt(Array(plaintext.utf8), p256dh: subscription.p256dh, auth: subscription.auth)
        }

        /// A well-formed push; `headers` replace (or, with a nil value, remove) the defaults.
        func request(
            method: String = "POST", path: String? = nil, headers: [String: String?] = [:], body: [UInt8]? = nil
        ) throws -> WebPushRequest {
            var all: [String: String] = [
                "authorization": authorization(), "ttl": "3600", "urgency": "normal", "content-encoding": "aes128gcm",
            ]
            for (name, value) in headers { all[name] = value }
            let body = try body ?? self.body(#"{"hello":"world"}"#)
            return WebPushRequest(
                method: method, path: path ?? "/" + subscription.id,
                fields: all.sorted { $0.key < $1.key }.map { HTTPHeader(name: $0.key, value: $0.value) }, body: body
            )
        }
    }
}
