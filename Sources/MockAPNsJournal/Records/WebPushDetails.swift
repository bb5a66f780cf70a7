/// What a web push request carried beyond a notification's common fields: a record with
/// `transport == .webPush` has these. The common fields hold the rest: `deviceToken` is the
/// subscription (the endpoint's path token), `topic` and `collapseID` the `Topic` header,
/// `expiration` the moment `TTL` ends (`0` for `TTL: 0`, which is not stored), `payload` the
/// encrypted body as sent.
public struct WebPushDetails: Sendable, Equatable {
    /// `TTL` as sent, in seconds, when it was a number.
    public var ttl: Int?
    /// `Urgency` as sent (`very-low`, `low`, `normal`, `high`).
    public var urgency: String?
    /// `Content-Encoding` as sent (`aes128gcm`).
    public var contentEncoding: String?
    /// The VAPID JWT's `sub` claim as sent.
    public var subject: String?
    /// The VAPID JWT's `aud` claim as sent.
    public var audience: String?
    /// The VAPID JWT's `exp` claim as sent (seconds since 1970).
    public var jwtExpiration: Int64?
    /// The `k=` of `Authorization: vapid` as sent: the application server's public key.
    public var applicationServerKey: String?
    /// The decrypted message: what the service worker's `push` event would read. `nil` when
    /// there was no body or it could not be decrypted (`messageProblem` says why).
    public var message: [UInt8]?
    /// Why the body could not be read, when it could not: the browser drops such a message.
    public var messageProblem: String?
    /// The notification a person would see, when the message is a valid Declarative Web Push
    /// message (Safari 18.4 shows these without a service worker).
    public var notification: WebPushNotificationContent?
    /// Why a message that names itself Declarative Web Push (`"web_push"`) is not a valid one:
    /// the JSON path and what was expected.
    public var notificationProblem: String?

    package init() {}

    /// The message as UTF-8 text, when it is text.
    public var messageText: String? {
        message.flatMap { String(validating: $0, as: UTF8.self) }
    }
}

/// A Declarative Web Push message's notification, as a person would see it.
public struct WebPushNotificationContent: Sendable, Equatable {
    /// The notification's title.
    public var title: String
    /// Its body text.
    public var body: String?
    /// The https: URL opened when the notification is clicked.
    public var navigate: String
    /// The language tag, as sent.
    public var lang: String?
    /// `ltr`, `rtl` or `auto`, as sent.
    public var dir: String?
    /// The tag that replaces an earlier notification with the same tag.
    public var tag: String?
    /// Whether it makes no sound or vibration.
    public var silent: Bool?
    /// The badge the app icon shows (`app_badge`).
    public var appBadge: Int?
    /// Whether a service worker may change it before it is shown (`mutable`).
    public var mutable: Bool

    package init(
        title: String, body: String? = nil, navigate: String, lang: String? = nil, dir: String? = nil, tag: String? = nil,
        silent: Bool? = nil, appBadge: Int? = nil, mutable: Bool = false
    ) {
        self.title = title
        self.body = body
        self.navigate = navigate
        self.lang = lang
        self.dir = dir
        self.tag = tag
        self.silent = silent
        self.appBadge = appBadge
        self.mutable = mutable
    }
}
