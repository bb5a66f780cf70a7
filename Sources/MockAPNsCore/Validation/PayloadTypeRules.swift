/// Apple's payload requirements per push type, which APNs does not enforce: it answers 200
/// and the device then delays or drops the notification, so a provider's tests never see the
/// mistake. MockAPNs finds each one (a `payload.*` diagnosis) and, with
/// `validation.payloadRules: "refuse"`, refuses the push.
///
/// | push type | requirement | source |
/// |---|---|---|
/// | `liveactivity` | `aps.event` is `start`, `update` or `end`; `aps.timestamp` is set; `update` and `end` carry `aps.content-state` | documented: "Starting and updating Live Activities with ActivityKit push notifications" (developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications) |
/// | `liveactivity`, `start` | `attributes-type`, `attributes` and an `alert` | documented: same page, "Construct the payload that starts a Live Activity" |
/// | `liveactivity` | `stale-date` in the future; `dismissal-date` in the future unless the event is `end` (a past one then dismisses at once, as the page documents) | MockAPNs' choice (a past stale date marks the activity outdated on arrival: usually a clock or unit mistake) |
/// | `liveactivity` | dates in seconds, not milliseconds | MockAPNs' choice (Apple counts seconds since 1970; a value past 10^11 is a millisecond count) |
/// | broadcast | no `start` event | documented: same page ("You can't use broadcast push notifications to start a Live Activity") |
/// | `widgets`, `controls` | `aps.content-changed: true` | documented: "Updating widgets with WidgetKit push notifications" and "Updating controls locally and remotely" (developer.apple.com/documentation/widgetkit) |
/// | `background` | `aps.content-available: 1` and no `alert`, `sound` or `badge` | documented: "Pushing background updates to your App" (developer.apple.com/documentation/usernotifications/pushing-background-updates-to-your-app) |
/// | `pushtotalk` | priority 10 (absent counts as 10) | documented in the PushToTalk framework's guidance on push notifications; the push type list of "Sending notification requests to APNs" names the type |
///
/// The refusal each rule answers with under `"refuse"` is MockAPNs' choice (Apple refuses
/// none of them): `InvalidPushType` for a payload that does not match its push type (the
/// "Sending notification requests to APNs" page says a mismatch between `apns-push-type` and
/// the payload may get an error), `BadPriority` for the priority rule.
package struct PayloadTypeRules: Sendable {
    package init() {}

    /// Whether the rules for `pushType` read the payload's structure: the request's one
    /// examination of its payload (`PayloadJSON`) then keeps its JSON value for them.
    package static func readsPayload(_ pushType: PushType?) -> Bool {
        switch pushType {
        case .liveactivity?, .widgets?, .controls?, .background?: true
        case .pushtotalk?, .alert?, .voip?, .complication?, .fileprovider?, .location?, .mdm?, nil: false
        }
    }

    /// The mistakes in the payload examined as `json` for `pushType`, in table order. The
    /// rules read the examination's JSON value (kept when `readsPayload(pushType)`), never the
    /// bytes: the payload is not parsed again. `now` is seconds since 1970 by the server
    /// clock; `isBroadcast` adds the broadcast rule. Payloads that are not a JSON object are
    /// left to the JSON checks.
    package func check(
        json: PayloadJSON?, pushType: PushType?, priority: Priority?, nowSeconds: Int64, isBroadcast: Bool = false
    ) -> [PayloadMismatch] {
        guard let pushType else { return [] }
        switch pushType {
        case .liveactivity:
            return aps(of: json).map { liveActivity($0, nowSeconds: nowSeconds, isBroadcast: isBroadcast) } ?? []
        case .widgets, .controls:
            guard let aps = aps(of: json) else { return [] }
            if case .bool(true)? = aps.value("content-changed") { return [] }
            return [.withoutContentChanged(pushType)]
        case .background:
            guard let aps = aps(of: json) else { return [] }
            var found: [PayloadMismatch] = []
            let interactive = ["alert", "sound", "badge"].filter { aps.value($0) != nil }
            if !interactive.isEmpty { found.append(.backgroundWithAlert(keys: interactive)) }
            if case .number("1")? = aps.value("content-available") {} else { found.append(.backgroundWithoutContentAvailable) }
            return found
        case .pushtotalk:
            guard let priority, priority != .immediate else { return [] }
            return [.pushToTalkPriority(priority.rawValue)]
        case .alert, .voip, .complication, .fileprovider, .location, .mdm:
            return []
        }
    }

    private func liveActivity(_ aps: APSDictionary, nowSeconds: Int64, isBroadcast: Bool) -> [PayloadMismatch] {
        var found: [PayloadMismatch] = []
        var event: String?
        switch aps.value("event") {
        case nil:
            found.append(.liveActivityWithoutEvent)
        case .string(let text)? where ["start", "update", "end"].contains(text):
            event = text
        case let other?:
            found.append(.liveActivityUnknownEvent(other.text))
        }
        if aps.value("timestamp") == nil { found.append(.liveActivityWithoutTimestamp) }
        if let event, event != "start", aps.value("content-state") == nil {
            found.append(.liveActivityWithoutContentState(event: event))
        }
        if event == "start" {
            if isBroadcast {
                found.append(.broadcastStart)
            } else {
                let missing = ["attributes-type", "attributes", "alert"].filter { aps.value($0) == nil }
                if !missing.isEmpty { found.append(.liveActivityStartIncomplete(missing: missing)) }
            }
        }
        for key in ["timestamp", "stale-date", "dismissal-date"] {
            guard case .number(let text)? = aps.value(key), let seconds = Int64(text) else { continue }
            if seconds > Self.millisecondThreshold {
                found.append(.liveActivityDateInMilliseconds(key: key, value: seconds))
            } else if key != "timestamp", seconds < nowSeconds, !(key == "dismissal-date" && event == "end") {
                found.append(.liveActivityDateInPast(key: key, seconds: seconds, nowSeconds: nowSeconds))
            }
        }
        return found
    }

    /// Seconds since 1970 pass 10^11 in the year 5138; milliseconds did in 1973.
    static let millisecondThreshold: Int64 = 100_000_000_000

    /// The `aps` dictionary of a payload that is a JSON object; an object without one reads as
    /// an empty `aps` (every requirement is then missing).
    private func aps(of json: PayloadJSON?) -> APSDictionary? {
        guard case .object(let members)? = json?.value else { return nil }
        guard let node = members.first(where: { $0.key == "aps" })?.value, case .object(let aps) = node.value else {
            return APSDictionary(members: [])
        }
        return APSDictionary(members: aps)
    }
}

/// The members of a payload's `aps` dictionary.
private struct APSDictionary {
    var members: [JSONMember]

    func value(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value.value
    }
}

private extension JSONValue {
    /// The value as it appears in JSON, shortened, for messages.
    var text: String {
        switch self {
        case .string(let text): "\"\(text.prefix(40))\""
        case .number(let text): text
        case .bool(let value): String(value)
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One way a payload does not suit its push type (see `PayloadTypeRules`).
package enum PayloadMismatch: Sendable, Equatable {
    case liveActivityWithoutEvent
    case liveActivityUnknownEvent(String)
    case liveActivityWithoutTimestamp
    case liveActivityWithoutContentState(event: String)
    case liveActivityStartIncomplete(missing: [String])
    case liveActivityDateInPast(key: String, seconds: Int64, nowSeconds: Int64)
    case liveActivityDateInMilliseconds(key: String, value: Int64)
    case broadcastStart
    case withoutContentChanged(PushType)
    case backgroundWithAlert(keys: [String])
    case backgroundWithoutContentAvailable
    case pushToTalkPriority(Int)

    /// The journal's code for it.
    package var code: DiagnosisCode {
        switch self {
        case .liveActivityWithoutEvent: .payloadLiveActivityWithoutEvent
        case .liveActivityUnknownEvent: .payloadLiveActivityUnknownEvent
        case .liveActivityWithoutTimestamp: .payloadLiveActivityWithoutTimestamp
        case .liveActivityWithoutContentState: .payloadLiveActivityWithoutContentState
        case .liveActivityStartIncomplete: .payloadLiveActivityStartIncomplete
        case .liveActivityDateInPast: .payloadLiveActivityDateInPast
        case .liveActivityDateInMilliseconds: .payloadLiveActivityDateInMilliseconds
        case .broadcastStart: .payloadBroadcastStart
        case .withoutContentChanged: .payloadWithoutContentChanged
        case .backgroundWithAlert: .payloadBackgroundWithAlert
        case .backgroundWithoutContentAvailable: .payloadBackgroundWithoutContentAvailable
        case .pushToTalkPriority: .payloadPushToTalkPriority
        }
    }

    /// The reason `validation.payloadRules: "refuse"` answers with (MockAPNs' choice: Apple
    /// accepts these pushes).
    package var refusal: Reason {
        switch self {
        case .pushToTalkPriority: .badPriority
        case .liveActivityWithoutEvent, .liveActivityUnknownEvent, .liveActivityWithoutTimestamp,
             .liveActivityWithoutContentState, .liveActivityStartIncomplete, .liveActivityDateInPast,
             .liveActivityDateInMilliseconds, .broadcastStart, .withoutContentChanged, .backgroundWithAlert,
             .backgroundWithoutContentAvailable:
            .invalidPushType
        }
    }

    /// What is wrong and what the device does about it, in plain words.
    package var message: String {
        switch self {
        case .liveActivityWithoutEvent:
            "The Live Activity payload has no aps.event: the system ignores it. Send \"start\", \"update\" or \"end\"."
        case .liveActivityUnknownEvent(let value):
            "The Live Activity payload's aps.event is \(value): the system knows only \"start\", \"update\" and \"end\" and ignores it."
        case .liveActivityWithoutTimestamp:
            "The Live Activity payload has no aps.timestamp: the system cannot tell it from older updates. Send the current time in seconds since 1970."
        case .liveActivityWithoutContentState(let event):
            "The Live Activity \(event) has no aps.content-state: the system has nothing to display and drops it."
        case .liveActivityStartIncomplete(let missing):
            "The push-to-start payload lacks \(missing.joined(separator: ", ")): the system needs attributes-type, attributes and an alert to start a Live Activity."
        case .liveActivityDateInPast(let key, let seconds, let now):
            "aps.\(key) is \(seconds), \(Self.secondsPast(seconds, now)) s before the server's time (\(now)): "
                + (key == "stale-date" ? "the Live Activity shows as outdated as soon as it arrives." : "the Live Activity is dismissed at once.")
        case .liveActivityDateInMilliseconds(let key, let value):
            "aps.\(key) is \(value), which is milliseconds: Apple counts seconds since 1970 (divide by 1000)."
        case .broadcastStart:
            "A broadcast carries aps.event \"start\": broadcasts cannot start a Live Activity (send push-to-start to a device's token)."
        case .withoutContentChanged(let type):
            "The \(type.rawValue) push lacks aps.content-changed: true: the system does not reload anything."
        case .backgroundWithAlert(let keys):
            "The background push carries aps.\(keys.joined(separator: ", aps.")): background pushes must not alert; send an alert push instead."
        case .backgroundWithoutContentAvailable:
            "The background push lacks aps.content-available: 1: the app is not woken."
        case .pushToTalkPriority(let priority):
            "The push-to-talk push has apns-priority \(priority): the system expects 10 (with apns-expiration 0) to deliver it at once."
        }
    }

    /// The numbers behind it, by name.
    package var figures: [JournalFigure] {
        switch self {
        case .liveActivityDateInPast(_, let seconds, let now):
            [JournalFigure("dateSeconds", seconds), JournalFigure("nowSeconds", now), JournalFigure("secondsPast", Self.secondsPast(seconds, now))]
        case .liveActivityDateInMilliseconds(_, let value):
            [JournalFigure("value", value)]
        case .pushToTalkPriority(let priority):
            [JournalFigure("priority", Int64(priority))]
        case .liveActivityWithoutEvent, .liveActivityUnknownEvent, .liveActivityWithoutTimestamp,
             .liveActivityWithoutContentState, .liveActivityStartIncomplete, .broadcastStart, .withoutContentChanged,
             .backgroundWithAlert, .backgroundWithoutContentAvailable:
            []
        }
    }

    /// How far `seconds` lies before `now` (a date from the payload may be any integer).
    private static func secondsPast(_ seconds: Int64, _ now: Int64) -> Int64 {
        let (past, overflow) = now.subtractingReportingOverflow(seconds)
        return overflow ? Int64.max : past
    }

    /// The diagnosis the journal records.
    package var diagnosis: Diagnosis {
        Diagnosis(code, message, figures: figures)
    }
}

/// Whether payload mistakes APNs does not refuse are only diagnosed, or refused.
package enum PayloadRuleMode: String, CaseIterable, Sendable, Hashable {
    /// Answer as APNs does (200), and journal the diagnosis. The default: it is what Apple does.
    case diagnose
    /// Refuse with the mistake's `PayloadMismatch.refusal`, and journal the diagnosis.
    case refuse
}
