import MockAPNsCore

/// A web push subscription as a page gets it from `PushSubscription.toJSON()`, with the id
/// MockAPNs knows it by: what `MockAPNsServer.subscribeWebPush(applicationServerKey:)` and
/// `POST /v1/web-push/subscriptions` return. Hand `json` (or `endpoint` and the keys) to the
/// application server under test.
public struct WebPushSubscriptionInfo: Sendable, Equatable {
    /// The endpoint's path token: the notification records' `deviceToken`, and the device
    /// the delivery model takes online or offline.
    public var id: String
    /// Where the application server sends: `https://<host>:<port>/<id>`.
    public var endpoint: String
    /// The browser's ECDH public key, base64url (`keys.p256dh`).
    public var p256dh: String
    /// The authentication secret, base64url (`keys.auth`).
    public var auth: String
    /// `active`, `expired` (the browser let it lapse) or `revoked` (the person removed the
    /// site's permission).
    public var state: String
    /// `PushSubscription.toJSON()`: `{"endpoint":...,"expirationTime":null,"keys":{"p256dh":...,"auth":...}}`.
    public var json: String

    package init(id: String, endpoint: String, p256dh: String, auth: String, state: String, json: String) {
        self.id = id
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.state = state
        self.json = json
    }
}

extension WebPushSubscriptionInfo {
    /// `subscription` as a page sees it, its endpoint under `origin`.
    package init(_ subscription: WebPushSubscription, origin: String) {
        let state = switch subscription.state {
        case .active: "active"
        case .expired: "expired"
        case .revoked: "revoked"
        }
        self.init(
            id: subscription.id, endpoint: subscription.endpoint(origin: origin),
            p256dh: Base64URL.encode(subscription.p256dh), auth: Base64URL.encode(subscription.auth),
            state: state, json: subscription.json(origin: origin)
        )
    }
}

/// Why a web push subscription could not be made: the application server key is not a
/// P-256 public key, or the server runs no web push listener.
package struct WebPushSubscriptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, naming what was expected.
    package var description: String

    package init(description: String) {
        self.description = description
    }
}
