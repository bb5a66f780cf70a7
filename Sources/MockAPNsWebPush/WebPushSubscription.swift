import Crypto
import MockAPNsCore

/// Whether a subscription still reaches its browser, and since when it does not.
package enum WebPushSubscriptionState: Sendable, Equatable {
    case active
    /// The push service ended it (Safari's subscriptions have no `expirationTime`, but the
    /// service can still drop one); pushes to it are gone.
    case expired(sinceMilliseconds: Int64)
    /// The user removed the site's permission, or the page called `unsubscribe()`.
    case revoked(sinceMilliseconds: Int64)
}

/// One push subscription as Safari makes it for `pushManager.subscribe`: the endpoint's
/// token, the user agent's ECDH key pair (`p256dh`) and auth secret (RFC 8291 §3), and the
/// VAPID key it was made with. The private key stays inside: `description`, `json` and
/// reflection never show it.
package struct WebPushSubscription: Sendable, Equatable {
    /// The endpoint's path token: "Q" + base64url(24 random bytes), no padding.
    package let id: String
    /// The 65-byte uncompressed P-256 point the page passed as `applicationServerKey`: the
    /// only VAPID key pushes to this subscription may be signed with.
    package let applicationServerKey: [UInt8]
    /// The user agent's ECDH public key, 65 bytes uncompressed.
    package let p256dh: [UInt8]
    /// The 16-byte authentication secret.
    package let auth: [UInt8]
    package var state: WebPushSubscriptionState
    package let createdAtMilliseconds: Int64
    /// The session that made it (`MockAPNsSession.id`): pushes to it are that session's, its
    /// scenario decides them and its records say it; `nil`: the server's.
    package var session: String?
    private let privateKey: P256.KeyAgreement.PrivateKey

    /// The user agent's private key, 32 bytes: what a fleet's replicas share so any of them can
    /// read a push to the subscription (`FleetChange.Kind.webPushSubscription`).
    package var privateKeyBytes: [UInt8] { Array(privateKey.rawRepresentation) }

    /// A subscription from given keys: for tests and fixtures (RFC 8291's example keys) and
    /// for the store. `applicationServerKey` is taken as given (the store checks it).
    package init(
        id: String, applicationServerKey: [UInt8], privateKey: P256.KeyAgreement.PrivateKey, auth: [UInt8],
        state: WebPushSubscriptionState = .active, createdAtMilliseconds: Int64
    ) {
        self.id = id
        self.applicationServerKey = applicationServerKey
        self.p256dh = Array(privateKey.publicKey.x963Representation)
        self.auth = auth
        self.state = state
        self.createdAtMilliseconds = createdAtMilliseconds
        self.privateKey = privateKey
    }

    package static func == (lhs: WebPushSubscription, rhs: WebPushSubscription) -> Bool {
        lhs.id == rhs.id && lhs.applicationServerKey == rhs.applicationServerKey && lhs.p256dh == rhs.p256dh
            && lhs.auth == rhs.auth && lhs.state == rhs.state && lhs.createdAtMilliseconds == rhs.createdAtMilliseconds
            && lhs.privateKey.rawRepresentation == rhs.privateKey.rawRepresentation
    }

    /// The push endpoint a page sees: `origin` + "/" + id.
    package func endpoint(origin: String) -> String {
        origin + "/" + id
    }

    /// Exactly what `PushSubscription.toJSON()` gives the page (Safari's subscriptions never
    /// expire on a schedule, so `expirationTime` is null).
    package func json(origin: String) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("endpoint", endpoint(origin: origin))
        writer.raw("expirationTime", json: "null")
        writer.beginObject("keys")
        writer.string("p256dh", Base64URL.encode(p256dh))
        writer.string("auth", Base64URL.encode(auth))
        writer.endObject()
        writer.endObject()
        return writer.text
    }

    /// The plaintext of an aes128gcm body encrypted for this subscription (RFC 8291, RFC 8188),
    /// or the precise reason it cannot be read.
    package func decrypt(_ body: [UInt8]) -> Result<[UInt8], WebPushDecryptionError> {
        WebPushDecryption.decrypt(body, privateKey: privateKey, p256dh: p256dh, auth: auth)
    }
}

extension WebPushSubscription: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The public parts only: a log line must never carry the private key.
    package var description: String {
        "WebPushSubscription(id: \(id), state: \(state), p256dh: \(Base64URL.encode(p256dh)), auth: \(Base64URL.encode(auth)))"
    }

    package var debugDescription: String { description }

    /// `dump` and the debugger see the same public parts.
    package var customMirror: Mirror {
        Mirror(self, children: [
            "id": id, "applicationServerKey": Base64URL.encode(applicationServerKey),
            "p256dh": Base64URL.encode(p256dh), "auth": Base64URL.encode(auth),
            "state": state, "createdAtMilliseconds": createdAtMilliseconds,
        ])
    }
}
