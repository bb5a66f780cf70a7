import MockAPNsCore

/// Decides a push request to Safari's web push endpoint. The order, and each answer (the
/// README's table):
///
/// 1. Method not POST → 405 MethodNotAllowed (`webPush.methodNotAllowed`). Path not
///    `/<token>` (a query is ignored) → 404 BadPath (`webPush.badPath`).
/// 2. Subscription unknown → 400 BadDeviceToken (`webPush.unknownSubscription`): MockAPNs'
///    choice, APNs' answer for a token it never issued.
/// 3. VAPID (RFC 8292), Apple's documented 403 BadJwtToken, every cause that holds diagnosed,
///    one answer: Authorization missing (`webPush.vapidMissing`); not `vapid t=…, k=…` (the
///    draft `WebPush` scheme with `Crypto-Key: p256ecdsa=`, another scheme, no t= or k=), a JWT
///    that is not three segments of JSON, `alg` not ES256, a signature not 64 bytes
///    (`webPush.vapidMalformed`); k= not the subscription's applicationServerKey
///    (`webPush.vapidWrongKey`); signature not valid for k= (`webPush.vapidBadSignature`); `aud`
///    missing or not exactly one of the origins (`webPush.vapidAudience`); `exp` missing, not a
///    number, past, or more than `maximumExpirationSeconds` ahead by the server clock
///    (`webPush.vapidExpiration`); `sub` missing, not `mailto:`/`https:`, `mailto: ` with a
///    space, angle brackets, a special-use or dotless host, or `http:` (`webPush.vapidSubject`).
/// 4. Subscription expired or revoked → 410 Unregistered (`goneAnswer` .unregistered, the
///    default), or 201 with the same diagnosis (`.accepted`, as Apple is reported to answer)
///    and the checks below still applied (`webPush.goneSubscription`).
/// 5. Headers, every problem diagnosed, answered with the first: TTL missing (when
///    `requiresTTL`) or not a non-negative integer → 400 BadExpirationDate (`webPush.ttl`);
///    Urgency not very-low, low, normal or high → 400 BadPriority (`webPush.urgency`); Topic
///    empty, over 32 characters or outside base64url (RFC 8030 §5.4) → 400 BadCollapseId
///    (`webPush.topic`); a body without `Content-Encoding: aes128gcm` → 400 BadRequestPayload
///    (`webPush.contentEncoding`).
/// 6. Body longer than `maximumPayloadBytes` → 413 PayloadTooLarge (`webPush.payloadTooLarge`).
/// 7. A body that does not decrypt → 201 with `webPush.undecryptable` (Apple cannot read it;
///    the browser drops it), or 400 BadRequestPayload with `rejectsUndecryptable`. A body that
///    does, with `web_push` but not valid Declarative Web Push → 201 with
///    `webPush.declarativeInvalid` (Apple forwards the bytes). A body stored cut short (shorter
///    than `bodyLength`) is not decrypted.
/// 8. Otherwise → 201.
package struct WebPushDecider: Sendable {
    private let subscriptions: WebPushSubscriptions
    private let options: WebPushOptions
    private let clock: ServerClock

    package init(subscriptions: WebPushSubscriptions, options: WebPushOptions, clock: ServerClock) {
        self.subscriptions = subscriptions
        self.options = options
        self.clock = clock
    }

    /// `origins`: the origins a correct `aud` may name (the endpoint's origin as the server
    /// advertises it, and "https://" + the request's authority).
    package func decide(_ request: WebPushRequest, origins: [String]) -> WebPushDecision {
        var decision = WebPushDecision()
        // The headers as sent, for the record, whatever the answer.
        let ttlText = request.head[.ttl]
        decision.ttl = ttlText.flatMap(Self.ttl)
        decision.urgency = request.head[.urgency]
        decision.topic = request.head[.topic]
        decision.contentEncoding = request.head[.contentEncoding]

        // 1. Method and path.
        guard request.method == "POST" else {
            return refuse(decision, .methodNotAllowed, [Diagnosis(.webPushMethodNotAllowed,
                "The method is `\(request.method.prefix(40))`; a push is `POST /<subscription token>` (RFC 8030 §5).")])
        }
        guard let token = Self.token(request.path) else {
            return refuse(decision, .badPath, [Diagnosis(.webPushBadPath,
                "The path `\(request.path.prefix(200))` is not `/<subscription token>`: post to the subscription's endpoint exactly as PushSubscription.endpoint gives it.")])
        }
        decision.subscriptionID = token

        // 2. The subscription; the VAPID claims are read for the record either way.
        let subscription = subscriptions.subscription(id: token)
        decision.subscriptionSession = subscription?.session
        let vapid = VAPIDInspection(
            authorization: request.head[.authorization], cryptoKey: request.head[.cryptoKey],
            applicationServerKey: subscription?.applicationServerKey, origins: origins,
            nowSeconds: clock.secondsSince1970, maximumExpirationSeconds: options.maximumExpirationSeconds
        )
        decision.vapid = vapid.claims
        guard let subscription else {
            return refuse(decision, .badDeviceToken, [Diagnosis(.webPushUnknownSubscription,
                "No subscription has the token `\(token.prefix(200))`: MockAPNs never issued it, or it was removed; answered 400 BadDeviceToken, "
                + "APNs' answer for a token it never issued. Send to the endpoint of a subscription the page made.")])
        }

        // 3. VAPID.
        guard vapid.diagnoses.isEmpty else { return refuse(decision, .badJwtToken, vapid.diagnoses) }

        // 4. A subscription that is gone.
        if let gone = goneDiagnosis(subscription) {
            switch options.goneAnswer {
            case .unregistered: return refuse(decision, .unregistered, [gone])
            case .accepted: decision.diagnoses.append(gone)
            }
        }

        // 5. Headers.
        var problems: [(reason: Reason, diagnosis: Diagnosis)] = []
        if let problem = ttlProblem(ttlText) { problems.append((.badExpirationDate, Diagnosis(.webPushTTL, problem))) }
        if let urgency = decision.urgency, !["very-low", "low", "normal", "high"].contains(urgency) {
            problems.append((.badPriority, Diagnosis(.webPushUrgency,
                "Urgency is `\(urgency.prefix(40))`; RFC 8030 §5.3 allows very-low, low, normal or high (lowercase).")))
        }
        if let topic = decision.topic, let problem = Self.topicProblem(topic) {
            problems.append((.badCollapseId, Diagnosis(.webPushTopic, problem)))
        }
        if request.bodyLength > 0, let problem = Self.contentEncodingProblem(decision.contentEncoding) {
            problems.append((.badRequestPayload, Diagnosis(.webPushContentEncoding, problem)))
        }
        if let first = problems.first {
            return refuse(decision, first.reason, decision.diagnoses + problems.map(\.diagnosis))
        }

        // 6. Size.
        guard request.bodyLength <= options.maximumPayloadBytes else {
            return refuse(decision, .payloadTooLarge, decision.diagnoses + [Diagnosis(.webPushPayloadTooLarge,
                "The body is \(request.bodyLength) bytes; the push service takes at most \(options.maximumPayloadBytes) (RFC 8030 §7.2 guarantees 4096, "
                + "the encrypted body included: about 3993 bytes of plaintext in one aes128gcm record).",
                figures: [JournalFigure("bodyBytes", Int64(request.bodyLength)), JournalFigure("maximumBytes", Int64(options.maximumPayloadBytes))])])
        }

        // 7. The body.
        if !request.body.isEmpty, request.body.count == request.bodyLength {
            switch subscription.decrypt(request.body) {
            case .success(let plaintext):
                let message = WebPushMessage(reading: plaintext)
                decision.message = message
                if let problem = message.declarativeProblem {
                    decision.diagnoses.append(Diagnosis(.webPushDeclarativeInvalid,
                        "The body has `web_push` but is not a valid Declarative Web Push message: \(problem). Apple forwards the bytes (201); "
                        + "Safari will not show it declaratively and hands it to the service worker's push event, if there is one."))
                }
            case .failure(let error):
                let draftHint = request.head[.encryption] != nil || request.head[.cryptoKey]?.lowercased().contains("dh=") == true
                    ? " The request carries `Encryption`/`Crypto-Key: dh=` headers, which only the draft aesgcm encoding uses." : ""
                if options.rejectsUndecryptable {
                    return refuse(decision, .badRequestPayload, decision.diagnoses + [Diagnosis(.webPushUndecryptable,
                        "The body cannot be decrypted with the subscription's keys: \(error).\(draftHint) "
                        + "MockAPNs is set to refuse such bodies (rejectsUndecryptable); Apple itself accepts them and the browser drops them.")])
                }
                decision.diagnoses.append(Diagnosis(.webPushUndecryptable,
                    "Apple cannot read the body and accepts it; the browser will drop it: \(error).\(draftHint)"))
            }
        }

        // 8. Accepted.
        return decision
    }

    private func refuse(_ decision: WebPushDecision, _ reason: Reason, _ diagnoses: [Diagnosis]) -> WebPushDecision {
        var decision = decision
        decision.status = reason.httpStatus
        decision.reason = reason
        decision.diagnoses = diagnoses
        return decision
    }

    /// The token of `/<token>` (a query dropped), or `nil` for any other path.
    static func token(_ path: String) -> String? {
        let withoutQuery = path.prefix { $0 != "?" && $0 != "#" }
        guard withoutQuery.hasPrefix("/") else { return nil }
        let token = withoutQuery.dropFirst()
        guard !token.isEmpty, !token.contains("/") else { return nil }
        return String(token)
    }

    private func goneDiagnosis(_ subscription: WebPushSubscription) -> Diagnosis? {
        let what: String
        let since: Int64
        switch subscription.state {
        case .active: return nil
        case .expired(let milliseconds):
            what = "expired"
            since = milliseconds
        case .revoked(let milliseconds):
            what = "revoked (the permission was removed or the page unsubscribed)"
            since = milliseconds
        }
        let answer: String
        switch options.goneAnswer {
        case .unregistered:
            answer = "answered 410 Unregistered (RFC 8030 §6.2): delete the subscription and stop sending to it"
        case .accepted:
            answer = "answered 201, as Apple is reported to keep answering after a permission is removed (WebKit bug 249766), "
                + "but nothing would reach the browser"
        }
        return Diagnosis(.webPushGoneSubscription, "The subscription `\(subscription.id)` is \(what) since \(since) ms; \(answer).",
                         figures: [JournalFigure("sinceMilliseconds", since)])
    }

    /// TTL as a number of seconds: digits only.
    static func ttl(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    private func ttlProblem(_ text: String?) -> String? {
        guard let text else {
            guard options.requiresTTL else { return nil }
            return "The TTL header is missing; RFC 8030 §5.2 requires it (seconds the push service keeps the message, e.g. `TTL: 86400`)."
        }
        guard Self.ttl(text) == nil else { return nil }
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return "TTL is \(text.prefix(40)), more seconds than a TTL can hold; send a number of seconds such as 86400."
        }
        return "TTL is `\(text.prefix(40))`, not a non-negative integer number of seconds (RFC 8030 §5.2)."
    }

    private static func topicProblem(_ topic: String) -> String? {
        if topic.isEmpty {
            return "Topic is empty; RFC 8030 §5.4 wants 1 to 32 base64url characters, or no Topic header."
        }
        if topic.count > 32 {
            return "Topic is \(topic.count) characters (`\(topic.prefix(64))`); RFC 8030 §5.4 allows at most 32 base64url characters (hash longer keys)."
        }
        if !Base64URL.isURLAlphabet(topic) {
            return "Topic `\(topic)` has characters outside the base64url alphabet (A–Z a–z 0–9 - _), as RFC 8030 §5.4 requires."
        }
        return nil
    }

    private static func contentEncodingProblem(_ encoding: String?) -> String? {
        guard let encoding else {
            return "The body has no Content-Encoding; Apple's web push takes only `Content-Encoding: aes128gcm` bodies (RFC 8291, RFC 8188)."
        }
        switch encoding.trimmingWhitespace().lowercased() {
        case "aes128gcm": return nil
        case "aesgcm":
            return "Content-Encoding is `aesgcm`: aesgcm is the draft encoding Safari does not read; send aes128gcm (RFC 8291, RFC 8188)."
        default:
            return "Content-Encoding is `\(encoding.prefix(40))`, not `aes128gcm`, the only encoding Safari reads (RFC 8291, RFC 8188)."
        }
    }
}
