import MockAPNsCore
import MockAPNsWire

/// Typed rules for tests: an action first, then the conditions a request must meet, each a
/// new value. What a scenario file's rule can say, without writing its JSON:
///
/// ```swift
/// let gone = ScenarioRule.reject(.unregistered).forToken(token).times(1)
/// ```
///
/// A built rule is checked when it is added, by the same decoder as a scenario file (it is
/// written as the file's JSON and read back), so a value out of range (a status of 99, a
/// priority of 11) is refused with its JSON path.
extension ScenarioRule {
    // MARK: Actions

    /// Refuses with Apple's `reason`: its HTTP status and `{"reason": ...}` on HTTP/2, its
    /// status byte on the legacy gateway. A 410 carries `timestamp` (milliseconds since
    /// 1970), or the time of the answer.
    public static func reject(_ reason: Reason, timestamp: Int64? = nil) -> ScenarioRule {
        ScenarioRule(name: "", action: .reject(reason, timestamp: timestamp))
    }

    /// Answers success whatever the decision core would say; tried before validation, so it
    /// accepts a request the core would refuse.
    public static func accept() -> ScenarioRule {
        ScenarioRule(name: "", stage: .beforeValidation, action: .accept)
    }

    /// Answers anything at all on HTTP/2: `status`, the header fields given, and `body`, or
    /// `{"reason": reason}` when only a reason is given.
    public static func answer(
        status: Int, reason: String? = nil, body: String? = nil, headers: KeyValuePairs<String, String> = [:]
    ) -> ScenarioRule {
        let fields = headers.map { HTTPHeader(name: $0.key, value: $0.value) }
        return ScenarioRule(name: "", action: .respond(ScenarioResponse(status: status, headers: fields, body: body, reason: reason)))
    }

    /// Keeps the decision core's answer and sends it `milliseconds` later.
    public static func delay(milliseconds: Double) -> ScenarioRule {
        ScenarioRule(name: "", delay: .fixed(milliseconds: milliseconds))
    }

    /// Closes the connection (TCP FIN) without answering.
    public static func closeConnection() -> ScenarioRule {
        ScenarioRule(name: "", action: .fault(.closeConnection))
    }

    /// Aborts the connection: the client sees a TCP RST.
    public static func resetConnection() -> ScenarioRule {
        ScenarioRule(name: "", action: .fault(.resetConnection))
    }

    /// Resets the request's HTTP/2 stream with `errorCode` (8, CANCEL, by default).
    public static func resetStream(errorCode: UInt32 = 8) -> ScenarioRule {
        ScenarioRule(name: "", action: .fault(.resetStream(errorCode: errorCode)))
    }

    /// Sends GOAWAY with `errorCode` and `{"reason": reason}` as its debug data, then closes.
    public static func goAway(errorCode: UInt32 = 0, reason: String? = nil) -> ScenarioRule {
        ScenarioRule(name: "", action: .fault(.goAway(ScenarioGoAway(errorCode: errorCode, reason: reason))))
    }

    /// Never answers; the connection stays open.
    public static func stall() -> ScenarioRule {
        ScenarioRule(name: "", action: .fault(.stall))
    }

    /// Answers, then goes away as a server shutting down does (GOAWAY `Shutdown`, legacy
    /// status 10).
    public static func shutdown() -> ScenarioRule {
        ScenarioRule(name: "", action: .fault(.shutdown))
    }

    /// Gives the request's device token `window`, then lets the core decide (a push past the
    /// window is refused `429 TooManyRequests`). Tried before validation, so the window
    /// counts the push that set it.
    public static func limitRate(_ window: RateWindow) -> ScenarioRule {
        ScenarioRule(name: "", stage: .beforeValidation, action: .limitRate(window))
    }

    /// Takes the request's device offline before its notification reaches the delivery model.
    public static func deviceOffline() -> ScenarioRule {
        ScenarioRule(name: "", action: .setDevice(online: false))
    }

    /// Brings the request's device back online.
    public static func deviceOnline() -> ScenarioRule {
        ScenarioRule(name: "", action: .setDevice(online: true))
    }

    // MARK: Conditions

    /// Only requests to one of these device tokens (hex, any case) or web push subscriptions.
    public func forToken(_ tokens: String...) -> ScenarioRule {
        changed { $0.match.tokens = ($0.match.tokens ?? []).union(tokens.map { $0.lowercased() }) }
    }

    /// Only requests for one of these topics (`apns-topic`).
    public func forTopic(_ topics: String...) -> ScenarioRule {
        changed { $0.match.topics = ($0.match.topics ?? []).union(topics) }
    }

    /// Only requests of one of these push types (`apns-push-type`, as sent: `alert`, `background`...).
    public func forPushType(_ pushTypes: String...) -> ScenarioRule {
        changed { $0.match.pushTypes = ($0.match.pushTypes ?? []).union(pushTypes) }
    }

    /// Only requests of one of these priorities (a request without one counts as 10).
    public func forPriority(_ priorities: Int...) -> ScenarioRule {
        changed { $0.match.priorities = ($0.match.priorities ?? []).union(priorities) }
    }

    /// Only requests on one of these protocol mouths.
    public func forProtocol(_ transports: Transport...) -> ScenarioRule {
        changed { $0.match.protocols = ($0.match.protocols ?? []).union(transports) }
    }

    /// Only requests whose JSON payload holds `value` at the dotted `path` (`aps.alert.title`).
    public func whenPayload(_ path: String, equals value: String) -> ScenarioRule {
        changed { $0.match.payload.append(PayloadMatch(path: path, equals: .string(value))) }
    }

    /// Only requests whose JSON payload holds the number `value` at the dotted `path`.
    public func whenPayload(_ path: String, equals value: Int) -> ScenarioRule {
        changed { $0.match.payload.append(PayloadMatch(path: path, equals: .number(String(value)))) }
    }

    /// Only requests whose JSON payload holds `value` at the dotted `path`.
    public func whenPayload(_ path: String, equals value: Bool) -> ScenarioRule {
        changed { $0.match.payload.append(PayloadMatch(path: path, equals: .bool(value))) }
    }

    /// Only requests whose JSON payload has (`true`) or lacks (`false`) the dotted `path`.
    public func whenPayload(_ path: String, exists: Bool) -> ScenarioRule {
        changed { $0.match.payload.append(PayloadMatch(path: path, exists: exists)) }
    }

    /// Fires only with this chance (0 to 1), drawn from the scenario's seeded generator.
    public func withProbability(_ probability: Double) -> ScenarioRule {
        changed { $0.match.probability = probability }
    }

    // MARK: Firing

    /// Fires at most `count` times, then lets requests through to the rules below it.
    public func times(_ count: Int) -> ScenarioRule {
        changed { $0.times = count }
    }

    /// Waits `milliseconds` before its answer (or its fault).
    public func delayed(milliseconds: Double) -> ScenarioRule {
        changed { $0.delay = .fixed(milliseconds: milliseconds) }
    }

    /// Is tried before the decision core validates the request, so it sees (and may answer)
    /// requests the core would refuse.
    public func beforeValidation() -> ScenarioRule {
        changed { $0.stage = .beforeValidation }
    }

    /// Fires only while the scenario is in the named `state`.
    public func requiring(state: String) -> ScenarioRule {
        changed { $0.requiresState = state }
    }

    /// Moves the scenario to the named `state` when it fires.
    public func setting(state: String) -> ScenarioRule {
        changed { $0.setsState = state }
    }

    /// The name the journal's records of its firings carry (by default `added[<id>]`).
    public func named(_ name: String) -> ScenarioRule {
        changed { $0.name = name }
    }

    /// The rule as a scenario file's `rules` hold it: what `POST /v1/scenario/rules` takes.
    public var json: String { jsonText }

    private func changed(_ change: (inout ScenarioRule) -> Void) -> ScenarioRule {
        var rule = self
        change(&rule)
        return rule
    }
}
