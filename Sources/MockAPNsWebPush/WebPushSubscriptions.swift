import Crypto
import MockAPNsCore
import Synchronization

/// The subscriptions this mock has handed out, by token, in creation order. Shared between
/// the control API (which creates and ends them) and the push endpoint (which reads them).
package final class WebPushSubscriptions: Sendable {
    private struct State {
        var byID: [String: WebPushSubscription] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Makes a subscription as `pushManager.subscribe` does.
    ///
    /// `applicationServerKey` as a page passes it to pushManager.subscribe: base64url (padding
    /// optional) or standard base64 of the 65-byte uncompressed point. Throws with a clear
    /// message ("applicationServerKey: expected ... got ...") otherwise.
    package func create(applicationServerKey: String, now: Int64, session: String? = nil) throws(WebPushKeyError) -> WebPushSubscription {
        let key = try Self.decodeApplicationServerKey(applicationServerKey)
        var generator = SystemRandomNumberGenerator()
        var subscription = WebPushSubscription(
            id: "Q" + Base64URL.encode(Self.randomBytes(24, using: &generator)),
            applicationServerKey: key, privateKey: P256.KeyAgreement.PrivateKey(),
            auth: Self.randomBytes(16, using: &generator), createdAtMilliseconds: now
        )
        subscription.session = session
        add(subscription)
        return subscription
    }

    /// Stores a subscription made elsewhere (tests, fixtures), replacing one with its id.
    package func add(_ subscription: WebPushSubscription) {
        state.withLock { state in
            if state.byID.updateValue(subscription, forKey: subscription.id) == nil {
                state.order.append(subscription.id)
            }
        }
    }

    package func subscription(id: String) -> WebPushSubscription? {
        state.withLock { $0.byID[id] }
    }

    /// Every subscription, in creation order.
    package var all: [WebPushSubscription] {
        state.withLock { state in state.order.compactMap { state.byID[$0] } }
    }

    /// Marks a subscription expired; `false` when there is none with this id.
    package func expire(id: String, at milliseconds: Int64) -> Bool {
        setState(id: id, .expired(sinceMilliseconds: milliseconds))
    }

    /// Marks a subscription revoked (permission removed); `false` when there is none.
    package func revoke(id: String, at milliseconds: Int64) -> Bool {
        setState(id: id, .revoked(sinceMilliseconds: milliseconds))
    }

    /// Makes an expired or revoked subscription active again; `false` when there is none.
    package func reactivate(id: String) -> Bool {
        setState(id: id, .active)
    }

    package func remove(id: String) -> Bool {
        state.withLock { state in
            guard state.byID.removeValue(forKey: id) != nil else { return false }
            state.order.removeAll { $0 == id }
            return true
        }
    }

    /// Removes every subscription and says how many there were.
    package func removeAll() -> Int {
        state.withLock { state in
            let count = state.order.count
            state = State()
            return count
        }
    }

    private func setState(id: String, _ new: WebPushSubscriptionState) -> Bool {
        state.withLock { state in
            guard state.byID[id] != nil else { return false }
            state.byID[id]?.state = new
            return true
        }
    }

    private static func randomBytes(_ count: Int, using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The 65-byte point a page's `applicationServerKey` string stands for, or why not.
    static func decodeApplicationServerKey(_ text: String) throws(WebPushKeyError) -> [UInt8] {
        let expected = "applicationServerKey: expected the base64url (or base64) encoding of a 65-byte uncompressed P-256 public key"
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw WebPushKeyError("\(expected), got an empty string") }
        if trimmed.hasPrefix("-----BEGIN") {
            throw WebPushKeyError("\(expected), got a PEM block; pass the raw public point (the VAPID \"public key\" web-push tools print), not a PEM file")
        }
        let standard = trimmed.utf8.contains(UInt8(ascii: "+")) || trimmed.utf8.contains(UInt8(ascii: "/"))
        let decoded = Base64URL.decode(trimmed, alphabet: standard ? .standard : .url, allowingPadding: true)
        guard let bytes = decoded else {
            throw WebPushKeyError("\(expected), got \(JSONWriter.quoted(String(trimmed.prefix(100)))), which is neither base64url nor base64")
        }
        switch bytes.count {
        case 65:
            break
        case 32:
            throw WebPushKeyError("\(expected), got 32 bytes: the length of a private key; pass the VAPID public key")
        case 33:
            throw WebPushKeyError("\(expected), got 33 bytes: a compressed point; pushManager.subscribe needs the uncompressed form (65 bytes starting 0x04)")
        case 64:
            throw WebPushKeyError("\(expected), got 64 bytes: x and y without the leading 0x04 byte")
        default:
            throw WebPushKeyError("\(expected), got \(bytes.count) bytes")
        }
        guard bytes[0] == 0x04 else {
            throw WebPushKeyError("\(expected), got 65 bytes starting 0x\(String(bytes[0], radix: 16)), not 0x04")
        }
        guard (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil else {
            throw WebPushKeyError("\(expected), got 65 bytes that are not a point on the P-256 curve")
        }
        return bytes
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let text = Substring(self)
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }
}
