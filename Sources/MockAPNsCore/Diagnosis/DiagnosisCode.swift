/// Every diagnosis the journal can record, by the code readers filter on: the one list of
/// them. A code is `<area>.<name>` in camel case (`legacy.payloadNotJSON`), the area saying
/// where the mistake was seen.
///
/// Adding a code means adding a case here; its area and meaning follow in the switches below
/// (no `default:`), and the control API lists it (`GET /v1/diagnosis-codes`) for the dashboard.
package enum DiagnosisCode: String, CaseIterable, Sendable, Hashable {
    // Connections on every port
    case timeoutTLSHandshake = "timeout.tlsHandshake"
    case timeoutHTTP2Preface = "timeout.http2Preface"
    case timeoutControlRequestHeader = "timeout.controlRequestHeader"
    case timeoutLegacyIdle = "timeout.legacyIdle"
    case timeoutLegacyFrame = "timeout.legacyFrame"
    case timeoutHTTP1Idle = "timeout.http1Idle"
    case timeoutHTTP1RequestHeader = "timeout.http1RequestHeader"
    case timeoutHTTP1RequestBody = "timeout.http1RequestBody"
    case connectionsLimitReached = "connections.limitReached"

    // HTTP/2 provider API
    case http2ConnectionError = "http2.connectionError"
    case http2StreamError = "http2.streamError"
    case http2RequestRefused = "http2.requestRefused"
    case http2StreamAfterGoAway = "http2.streamAfterGoAway"
    case http2PayloadNotJSON = "http2.payloadNotJSON"
    case http2MalformedDeviceToken = "http2.malformedDeviceToken"
    case http2ConnectionChurn = "http2.connectionChurn"
    case providerTokenNote = "providerToken.note"

    // Payloads APNs accepts but the device delays or drops (by push type)
    case payloadLiveActivityWithoutEvent = "payload.liveActivityWithoutEvent"
    case payloadLiveActivityUnknownEvent = "payload.liveActivityUnknownEvent"
    case payloadLiveActivityWithoutTimestamp = "payload.liveActivityWithoutTimestamp"
    case payloadLiveActivityWithoutContentState = "payload.liveActivityWithoutContentState"
    case payloadLiveActivityStartIncomplete = "payload.liveActivityStartIncomplete"
    case payloadLiveActivityDateInPast = "payload.liveActivityDateInPast"
    case payloadLiveActivityDateInMilliseconds = "payload.liveActivityDateInMilliseconds"
    case payloadBroadcastStart = "payload.broadcastStart"
    case payloadWithoutContentChanged = "payload.withoutContentChanged"
    case payloadBackgroundWithAlert = "payload.backgroundWithAlert"
    case payloadBackgroundWithoutContentAvailable = "payload.backgroundWithoutContentAvailable"
    case payloadPushToTalkPriority = "payload.pushToTalkPriority"

    // Broadcast push
    case broadcastMissingRequiredHeader = "broadcast.missingRequiredHeader"
    case broadcastTopicForOtherApp = "broadcast.topicForOtherApp"

    // The device registry
    case registryTokenInOtherEnvironment = "registry.tokenInOtherEnvironment"
    case registryRateLimited = "registry.rateLimited"

    // Legacy binary gateway and feedback service
    case legacyPayloadLengthTooShort = "legacy.payloadLengthTooShort"
    case legacyPayloadLengthTooLong = "legacy.payloadLengthTooLong"
    case legacyPayloadNULTerminated = "legacy.payloadNULTerminated"
    case legacyPayloadNotJSON = "legacy.payloadNotJSON"
    case legacyASCIIHexToken = "legacy.asciiHexToken"
    case legacyLittleEndianLength = "legacy.littleEndianLength"
    case legacyNotBinaryProtocol = "legacy.notBinaryProtocol"
    case legacyConnectionChurn = "legacy.connectionChurn"
    case legacyClosedWithoutReadingError = "legacy.closedWithoutReadingError"
    case legacyTokenShorterThanItsLength = "legacy.tokenShorterThanItsLength"
    case legacyTokenLeftOut = "legacy.tokenLeftOut"
    case legacyByteSwappedIdentifier = "legacy.byteSwappedIdentifier"
    case feedbackTupleSkipped = "feedback.tupleSkipped"

    // The delivery model and its forwarders (never about an answer: APNs had already answered)
    case deliveryForwardFailed = "delivery.forwardFailed"
    case deliveryForwardTimedOut = "delivery.forwardTimedOut"
    case deliveryForwardSlow = "delivery.forwardSlow"
    case deliveryForwardQueueFull = "delivery.forwardQueueFull"
    case deliveryForwardImpossible = "delivery.forwardImpossible"
    case deliveryFeedOverflow = "delivery.feedOverflow"

    // Web push (Safari's endpoint, RFC 8030/8291/8292)
    case webPushMethodNotAllowed = "webPush.methodNotAllowed"
    case webPushBadPath = "webPush.badPath"
    case webPushUnknownSubscription = "webPush.unknownSubscription"
    case webPushVAPIDMissing = "webPush.vapidMissing"
    case webPushVAPIDMalformed = "webPush.vapidMalformed"
    case webPushVAPIDWrongKey = "webPush.vapidWrongKey"
    case webPushVAPIDBadSignature = "webPush.vapidBadSignature"
    case webPushVAPIDAudience = "webPush.vapidAudience"
    case webPushVAPIDExpiration = "webPush.vapidExpiration"
    case webPushVAPIDSubject = "webPush.vapidSubject"
    case webPushGoneSubscription = "webPush.goneSubscription"
    case webPushTTL = "webPush.ttl"
    case webPushUrgency = "webPush.urgency"
    case webPushTopic = "webPush.topic"
    case webPushContentEncoding = "webPush.contentEncoding"
    case webPushPayloadTooLarge = "webPush.payloadTooLarge"
    case webPushUndecryptable = "webPush.undecryptable"
    case webPushDeclarativeInvalid = "webPush.declarativeInvalid"
    case webPushMalformedHTTP1 = "webPush.malformedHTTP1"
    case webPushMisdirected = "webPush.misdirected"

    // Upstream mode (`--upstream`): the relay to the real APNs, and the fidelity check beside it
    case upstreamFailed = "upstream.failed"
    case fidelityDisagreement = "fidelity.disagreement"

    /// Where the mistake was seen: the part before the dot.
    package var area: String {
        String(rawValue.prefix { $0 != "." })
    }

    /// What the code means, in one sentence, for people choosing what to look at (each
    /// event's own message says what happened in that case).
    package var meaning: String {
        switch self {
        case .timeoutTLSHandshake: "A connection did not finish its TLS handshake in time and was closed."
        case .timeoutHTTP2Preface: "An HTTP/2 client did not send its connection preface in time after TLS and was closed."
        case .timeoutControlRequestHeader: "A control API client did not send a request header block in time and was closed."
        case .timeoutLegacyIdle: "A legacy gateway or feedback connection received nothing for timeouts.legacyIdleSeconds after its handshake and was closed."
        case .timeoutLegacyFrame: "A legacy gateway frame did not arrive whole within timeouts.legacyFrameSeconds of its first byte; the connection was closed without a packet."
        case .timeoutHTTP1Idle: "An HTTP/1.1 web push connection sent no next request within timeouts.webPushIdleSeconds and was closed."
        case .timeoutHTTP1RequestHeader: "An HTTP/1.1 web push request's line and headers did not arrive whole within timeouts.webPushHeaderSeconds of its first byte; answered 408 and closed."
        case .timeoutHTTP1RequestBody: "An HTTP/1.1 web push request's body did not arrive whole within timeouts.webPushBodySeconds of its headers; answered 408 and closed."
        case .connectionsLimitReached: "A listener met the open-file limit and could not accept a connection."
        case .http2ConnectionError: "The client broke the HTTP/2 protocol; the connection was ended with GOAWAY."
        case .http2StreamError: "The client broke the HTTP/2 protocol on one stream; the stream was reset."
        case .http2RequestRefused: "A request was refused before it reached the decision (its header list was too large)."
        case .http2StreamAfterGoAway: "The client opened a stream after the server's GOAWAY named an earlier one as the last it would process; nghttp2 ignored it."
        case .http2PayloadNotJSON: "A notification's payload is not valid JSON."
        case .http2MalformedDeviceToken: "A device token in the path is not hex of the allowed length (an odd number of digits, a character that is not a hex digit, too short or too long): BadDeviceToken."
        case .http2ConnectionChurn: "Many HTTP/2 connections each carried a single request instead of being reused."
        case .providerTokenNote: "A provider token was accepted but has a quirk worth fixing."
        case .payloadLiveActivityWithoutEvent: "A Live Activity push has no aps.event (start, update or end)."
        case .payloadLiveActivityUnknownEvent: "A Live Activity push has an aps.event other than start, update or end."
        case .payloadLiveActivityWithoutTimestamp: "A Live Activity push has no aps.timestamp, so the system cannot order its updates."
        case .payloadLiveActivityWithoutContentState: "A Live Activity update or end has no aps.content-state."
        case .payloadLiveActivityStartIncomplete: "A push-to-start Live Activity lacks attributes-type, attributes or an alert."
        case .payloadLiveActivityDateInPast: "A Live Activity's stale-date or dismissal-date is already past."
        case .payloadLiveActivityDateInMilliseconds: "A Live Activity date looks like milliseconds; Apple counts seconds since 1970."
        case .payloadBroadcastStart: "A broadcast carries event start; broadcasts cannot start a Live Activity."
        case .payloadWithoutContentChanged: "A widgets or controls push lacks aps.content-changed: true."
        case .payloadBackgroundWithAlert: "A background push carries an alert, sound or badge."
        case .payloadBackgroundWithoutContentAvailable: "A background push lacks aps.content-available: 1."
        case .payloadPushToTalkPriority: "A push-to-talk push is not sent at priority 10."
        case .broadcastMissingRequiredHeader: "A broadcast lacks a header Apple lists as required (apns-expiration or apns-priority)."
        case .broadcastTopicForOtherApp: "A broadcast's apns-topic names another app than its path."
        case .registryTokenInOtherEnvironment: "A push reached the environment its token does not belong to (BadDeviceToken)."
        case .registryRateLimited: "A push went over its token's rate window (TooManyRequests)."
        case .legacyPayloadLengthTooShort: "A legacy frame's payload length is shorter than its JSON, so the JSON was cut."
        case .legacyPayloadLengthTooLong: "A legacy frame's payload length is longer than its JSON, so later bytes were swallowed."
        case .legacyPayloadNULTerminated: "A legacy payload ends with NUL bytes after the JSON."
        case .legacyPayloadNotJSON: "A legacy notification's payload is not valid JSON."
        case .legacyASCIIHexToken: "A legacy device token was sent as ASCII hex text instead of its binary bytes."
        case .legacyLittleEndianLength: "A legacy length field was written in little-endian (host) byte order."
        case .legacyNotBinaryProtocol: "A client spoke HTTP to the legacy gateway's binary port."
        case .legacyConnectionChurn: "Many legacy gateway connections each carried about one notification."
        case .legacyClosedWithoutReadingError: "A client closed its gateway connection without reading the error packet."
        case .legacyTokenShorterThanItsLength: "A legacy token is shorter than its token length field says, misaligning the frame."
        case .legacyTokenLeftOut: "A legacy frame has a token length field but no token: the payload was read as the token."
        case .legacyByteSwappedIdentifier: "Legacy notification identifiers were written in host (little-endian) byte order."
        case .feedbackTupleSkipped: "A queued feedback entry could not be written as a feedback tuple."
        case .deliveryForwardFailed: "Forwarding a delivered notification failed: the command exited non-zero, the receiver answered non-2xx or refused the connection."
        case .deliveryForwardTimedOut: "Forwarding a delivered notification did not finish in time and was stopped."
        case .deliveryForwardSlow: "Forwarding a delivered notification finished, but took longer than delivery.forwardSlowSeconds."
        case .deliveryForwardQueueFull: "Deliveries came faster than a forwarder took them; the ones left out were not forwarded."
        case .deliveryForwardImpossible: "A delivered notification could not be forwarded (a simulator push needs a topic)."
        case .deliveryFeedOverflow: "The delivery model fell too far behind the journal; the inputs left out are counted."
        case .webPushMethodNotAllowed: "A web push request used a method other than POST (405 MethodNotAllowed)."
        case .webPushBadPath: "A web push request's path is not /<subscription token> (404 BadPath)."
        case .webPushUnknownSubscription: "A web push went to a subscription token MockAPNs never issued (400 BadDeviceToken)."
        case .webPushVAPIDMissing: "A web push has no Authorization header: the VAPID JWT is missing (403 BadJwtToken)."
        case .webPushVAPIDMalformed: "A web push's Authorization is not RFC 8292's vapid t=<JWT>, k=<key> with an ES256 JWT (403 BadJwtToken)."
        case .webPushVAPIDWrongKey: "A web push's VAPID key is not the applicationServerKey the subscription was made with (403 BadJwtToken)."
        case .webPushVAPIDBadSignature: "A web push's VAPID JWT signature does not verify with its k= key (403 BadJwtToken)."
        case .webPushVAPIDAudience: "A web push's VAPID aud is missing or not the push service's origin (403 BadJwtToken)."
        case .webPushVAPIDExpiration: "A web push's VAPID exp is missing, past, or more than a day ahead (403 BadJwtToken)."
        case .webPushVAPIDSubject: "A web push's VAPID sub is missing or not a reachable mailto: or https: URL (403 BadJwtToken)."
        case .webPushGoneSubscription: "A web push went to an expired or revoked subscription: nothing reaches the browser."
        case .webPushTTL: "A web push's TTL header is missing or not a non-negative integer (400 BadExpirationDate)."
        case .webPushUrgency: "A web push's Urgency is not very-low, low, normal or high (400 BadPriority)."
        case .webPushTopic: "A web push's Topic is longer than 32 characters or not base64url (400 BadCollapseId)."
        case .webPushContentEncoding: "A web push body is not declared Content-Encoding: aes128gcm (400 BadRequestPayload)."
        case .webPushPayloadTooLarge: "A web push body is larger than the push service takes (413 PayloadTooLarge)."
        case .webPushUndecryptable: "A web push body cannot be decrypted with the subscription's keys; the browser would drop it."
        case .webPushDeclarativeInvalid: "A web push body has web_push but is not a valid Declarative Web Push message."
        case .webPushMalformedHTTP1: "A web push request broke HTTP/1.1's message syntax (framing, header lines, Host); answered 400 and closed."
        case .webPushMisdirected: "A web push request's absolute-form target named another host or scheme (421 Misdirected Request)."
        case .upstreamFailed: "The upstream APNs gave no answer (unreachable, TLS refused, timed out, reset, closed): the provider got 503 or 500."
        case .fidelityDisagreement: "The upstream APNs answered a relayed request otherwise than MockAPNs' own rules would have."
        }
    }
}
