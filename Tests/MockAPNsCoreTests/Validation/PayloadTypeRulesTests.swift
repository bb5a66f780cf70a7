import XCTest
@testable import MockAPNsCore

/// Apple's payload requirements per push type (`PayloadTypeRules`): one row per rule and per
/// payload that satisfies it, with where each requirement is written down.
final class PayloadTypeRulesTests: XCTestCase {
    /// The server clock in these rows: 2023-11-14T22:13:20Z.
    static let now: Int64 = 1_700_000_000

    private struct Row {
        var name: String
        var pushType: PushType?
        var payload: String
        var priority: Priority? = nil
        var isBroadcast = false
        var expected: [DiagnosisCode]
    }

    private static let rows: [Row] = [
        // Starting and updating Live Activities with ActivityKit push notifications
        Row(name: "Live Activity update as Apple's sample", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"currentHealthLevel":0.0}}}"#, expected: []),
        Row(name: "Live Activity end with final content", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"end","content-state":{"a":1}}}"#, expected: []),
        Row(name: "Live Activity without event", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"content-state":{"a":1}}}"#, expected: [.payloadLiveActivityWithoutEvent]),
        Row(name: "Live Activity with an unknown event", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"begin","content-state":{"a":1}}}"#, expected: [.payloadLiveActivityUnknownEvent]),
        Row(name: "Live Activity event not a string", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":1,"content-state":{"a":1}}}"#, expected: [.payloadLiveActivityUnknownEvent]),
        Row(name: "Live Activity without timestamp", pushType: .liveactivity,
            payload: #"{"aps":{"event":"update","content-state":{"a":1}}}"#, expected: [.payloadLiveActivityWithoutTimestamp]),
        Row(name: "Live Activity update without content-state", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"update"}}"#, expected: [.payloadLiveActivityWithoutContentState]),
        Row(name: "Live Activity end without content-state", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"end"}}"#, expected: [.payloadLiveActivityWithoutContentState]),
        Row(name: "Live Activity payload without aps at all", pushType: .liveactivity, payload: #"{"score":"1-0"}"#,
            expected: [.payloadLiveActivityWithoutEvent, .payloadLiveActivityWithoutTimestamp]),
        Row(name: "push-to-start as Apple's sample", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1234,"event":"start","content-state":{},"attributes-type":"AdventureAttributes","attributes":{},"alert":{"title":"t"}}}"#,
            expected: []),
        Row(name: "push-to-start without attributes-type, attributes, alert", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{}}}"#, expected: [.payloadLiveActivityStartIncomplete]),
        Row(name: "stale-date in the future", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{},"stale-date":1700000600}}"#, expected: []),
        Row(name: "stale-date in the past", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{},"stale-date":1699990000}}"#,
            expected: [.payloadLiveActivityDateInPast]),
        Row(name: "dismissal-date in the past on an update", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{},"dismissal-date":1663177260}}"#,
            expected: [.payloadLiveActivityDateInPast]),
        // Apple documents a past dismissal-date on end as "dismiss immediately".
        Row(name: "dismissal-date in the past on end (documented: dismiss at once)", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"end","content-state":{},"dismissal-date":1663177260}}"#, expected: []),
        Row(name: "timestamp in milliseconds", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000000,"event":"update","content-state":{}}}"#,
            expected: [.payloadLiveActivityDateInMilliseconds]),
        Row(name: "broadcast update", pushType: .liveactivity, payload: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}"#,
            isBroadcast: true, expected: []),
        Row(name: "broadcast start (documented: broadcasts cannot start)", pushType: .liveactivity,
            payload: #"{"aps":{"timestamp":1700000000,"event":"start","content-state":{},"attributes-type":"A","attributes":{},"alert":"x"}}"#,
            isBroadcast: true, expected: [.payloadBroadcastStart]),
        // Updating widgets with WidgetKit push notifications; Updating controls locally and remotely
        Row(name: "widgets as documented", pushType: .widgets, payload: #"{"aps":{"content-changed":true}}"#, expected: []),
        Row(name: "widgets without content-changed", pushType: .widgets, payload: #"{"aps":{}}"#, expected: [.payloadWithoutContentChanged]),
        Row(name: "controls with content-changed 1", pushType: .controls, payload: #"{"aps":{"content-changed":1}}"#,
            expected: [.payloadWithoutContentChanged]),
        Row(name: "controls as documented", pushType: .controls, payload: #"{"aps":{"content-changed":true}}"#, expected: []),
        // Pushing background updates to your App
        Row(name: "background as documented", pushType: .background, payload: #"{"aps":{"content-available":1},"acme1":"bar"}"#, expected: []),
        Row(name: "background with an alert", pushType: .background, payload: #"{"aps":{"content-available":1,"alert":"hi"}}"#,
            expected: [.payloadBackgroundWithAlert]),
        Row(name: "background with sound and badge, no content-available", pushType: .background,
            payload: #"{"aps":{"sound":"default","badge":1}}"#, expected: [.payloadBackgroundWithAlert, .payloadBackgroundWithoutContentAvailable]),
        Row(name: "background with content-available true", pushType: .background, payload: #"{"aps":{"content-available":true}}"#,
            expected: [.payloadBackgroundWithoutContentAvailable]),
        // Push to Talk: priority 10
        Row(name: "pushtotalk at the default priority", pushType: .pushtotalk, payload: #"{"aps":{}}"#, expected: []),
        Row(name: "pushtotalk at 10", pushType: .pushtotalk, payload: #"{"aps":{}}"#, priority: .immediate, expected: []),
        Row(name: "pushtotalk at 5", pushType: .pushtotalk, payload: #"{"aps":{}}"#, priority: .powerAware, expected: [.payloadPushToTalkPriority]),
        // No rules
        Row(name: "alert", pushType: .alert, payload: #"{"aps":{"alert":"hi"}}"#, expected: []),
        Row(name: "no push type", pushType: nil, payload: #"{"aps":{}}"#, expected: []),
        Row(name: "not JSON is left to the JSON checks", pushType: .liveactivity, payload: "nope", expected: []),
        Row(name: "not an object is left to the JSON checks", pushType: .background, payload: "[]", expected: []),
    ]

    /// The rules read the value the request's one examination kept, never the bytes: given
    /// an examination that kept none, a rule that reads the payload finds nothing to read.
    func testTheRulesReadTheExaminationsValue() {
        let rules = PayloadTypeRules()
        let bytes = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        func codes(_ json: PayloadJSON?) -> [DiagnosisCode] {
            rules.check(json: json, pushType: .background, priority: nil, nowSeconds: Self.now).map(\.code)
        }
        XCTAssertEqual(codes(PayloadJSON(bytes, keepingValue: true)),
                       [.payloadBackgroundWithAlert, .payloadBackgroundWithoutContentAvailable])
        XCTAssertEqual(codes(PayloadJSON(bytes)), [])
        XCTAssertEqual(codes(nil), [])
        XCTAssertTrue(PayloadTypeRules.readsPayload(.background))
        XCTAssertTrue(PayloadTypeRules.readsPayload(.liveactivity))
        XCTAssertTrue(PayloadTypeRules.readsPayload(.widgets))
        XCTAssertTrue(PayloadTypeRules.readsPayload(.controls))
        XCTAssertFalse(PayloadTypeRules.readsPayload(.alert))
        XCTAssertFalse(PayloadTypeRules.readsPayload(.pushtotalk), "its rule reads the priority only")
        XCTAssertFalse(PayloadTypeRules.readsPayload(nil))
        XCTAssertEqual(rules.check(json: nil, pushType: .pushtotalk, priority: .powerAware, nowSeconds: Self.now).map(\.code),
                       [.payloadPushToTalkPriority])
    }

    func testEveryRule() {
        let rules = PayloadTypeRules()
        for row in Self.rows {
            let json = PayloadJSON(Array(row.payload.utf8), keepingValue: PayloadTypeRules.readsPayload(row.pushType))
            let found = rules.check(json: json, pushType: row.pushType, priority: row.priority,
                                    nowSeconds: Self.now, isBroadcast: row.isBroadcast)
            XCTAssertEqual(found.map(\.code), row.expected, row.name)
            for mismatch in found {
                XCTAssertFalse(mismatch.message.isEmpty, row.name)
                XCTAssertEqual(mismatch.diagnosis.code, mismatch.code, row.name)
            }
        }
    }

    /// Every `payload.*` code has a rule that finds it.
    func testEveryPayloadCodeIsFound() {
        let found = Set(Self.rows.flatMap(\.expected))
        let payloadCodes = Set(DiagnosisCode.allCases.filter { $0.area == "payload" })
        XCTAssertEqual(found, payloadCodes)
    }

    func testFiguresOfAPastDateAndTheRefusals() throws {
        let found = PayloadTypeRules().check(
            json: PayloadJSON(Array(#"{"aps":{"timestamp":1700000000,"event":"update","content-state":{},"stale-date":1699999000}}"#.utf8), keepingValue: true),
            pushType: .liveactivity, priority: nil, nowSeconds: Self.now)
        let past = try XCTUnwrap(found.first)
        XCTAssertEqual(past.figures, [JournalFigure("dateSeconds", 1_699_999_000), JournalFigure("nowSeconds", Self.now),
                                      JournalFigure("secondsPast", 1000)])
        XCTAssertTrue(past.message.contains("stale-date"), past.message)
        XCTAssertEqual(past.refusal, .invalidPushType)
        XCTAssertEqual(PayloadMismatch.pushToTalkPriority(5).refusal, .badPriority)
        // A date from the payload may be any integer: no overflow.
        let far = PayloadTypeRules().check(
            json: PayloadJSON(Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{},"stale-date":-9223372036854775807}}"#.utf8), keepingValue: true),
            pushType: .liveactivity, priority: nil, nowSeconds: Self.now)
        XCTAssertEqual(far.first?.figures.last, JournalFigure("secondsPast", Int64.max))
    }
}
