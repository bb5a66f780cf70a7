import MockAPNsWire
import MockAPNsCore
import XCTest
import MockAPNsScenario

/// The rule engine without sockets: order, stages, counts, named states and seeded chance.
final class ScenarioEngineTests: XCTestCase {
    private let token = String(repeating: "a1b2c3d4", count: 8)
    private let accepted = Verdict.accepted(apnsID: "ID", uniqueID: nil)
    private let refused = Verdict.rejected(reason: .badPriority, apnsID: "ID", timestamp: nil)

    private func request(token: String? = nil, transport: Transport = .http2, payload: String = #"{"aps":{"alert":"hi"}}"#) -> ScenarioRequest {
        ScenarioRequest(transport: transport, deviceToken: token ?? self.token, topic: "com.example.app", pushType: "alert",
                        priority: nil, payload: Array(payload.utf8), authentication: .notRequired)
    }

    /// Runs `count` requests on one connection and returns each decision's action.
    private func run(_ engine: ScenarioEngine, _ count: Int, core: Verdict? = nil, request: ScenarioRequest? = nil) -> [ScenarioAction?] {
        var connection = ScenarioConnection(transport: .http2, index: 1)
        return (0..<count).map { _ in
            engine.decide(request ?? self.request(), connection: &connection) { core ?? accepted }.action
        }
    }

    func testFlakyExampleFailsTwiceThenSucceedsForGood() throws {
        let engine = ScenarioEngine(scenario: try ScenarioDecoderTests.example("flaky-503-then-ok"))
        let unavailable = ScenarioAction.reject(.serviceUnavailable, timestamp: nil)
        XCTAssertEqual(run(engine, 5), [unavailable, unavailable, nil, nil, nil])
        XCTAssertEqual(engine.currentState, "recovered")
    }

    func testTimesLimitsFirings() {
        let rule = ScenarioRule(name: "twice", action: .reject(.internalServerError, timestamp: nil), times: 2)
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: [rule]))
        XCTAssertEqual(run(engine, 3).map { $0 != nil }, [true, true, false])
        XCTAssertEqual(engine.firingCounts, [2])
    }

    /// After validation a scenario adds failures; it never hides the core's refusal.
    func testAfterValidationRulesSeeOnlyAcceptedRequests() {
        let rule = ScenarioRule(name: "all", action: .reject(.unregistered, timestamp: 5))
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: [rule]))
        var connection = ScenarioConnection(transport: .http2, index: 1)
        let decision = engine.decide(request(), connection: &connection) { refused }
        XCTAssertNil(decision.action)
        XCTAssertEqual(decision.coreVerdict, refused)
        XCTAssertEqual(engine.firingCounts, [0], "the rule did not spend a firing on it")
    }

    /// Before validation a rule decides alone: the core is not even asked.
    func testBeforeValidationRulesSkipTheCore() {
        let rule = ScenarioRule(name: "accept all", stage: .beforeValidation, action: .accept)
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: [rule]))
        var connection = ScenarioConnection(transport: .http2, index: 1)
        var asked = false
        let decision = engine.decide(request(), connection: &connection) { asked = true; return refused }
        XCTAssertFalse(asked)
        XCTAssertEqual(decision.verdict(apnsID: "GEN", uniqueID: nil, now: 0), .accepted(apnsID: "GEN", uniqueID: nil))
    }

    /// A `limitRate` rule sets the token's window and lets the core decide; the registry then
    /// counts on the server clock. Decoded from JSON, its stage defaults to before validation,
    /// so the push that set the window is counted too.
    func testLimitRateSetsTheTokensWindowAndLetsTheCoreDecide() throws {
        let scenario = try Scenario.decode(jsonText: #"""
            {"name": "rate", "rules": [{"name": "two a minute", "match": {"tokens": ["\#(token)"]},
              "action": {"type": "limitRate", "pushes": 2, "perSeconds": 60}}]}
            """#)
        XCTAssertEqual(scenario.rules.first?.stage, .beforeValidation)
        let registry = DeviceRegistry()
        let clock = ServerClock(fixedAt: 1_000_000)
        let decider = PushDecider(registry: registry, clock: clock)
        let engine = ScenarioEngine(scenario: scenario, registry: registry)
        var connection = ScenarioConnection(transport: .http2, index: 1)
        func push(_ tokenValue: String = "") -> Verdict? {
            let pushed = tokenValue.isEmpty ? token : tokenValue
            let decision = engine.decide(request(token: pushed), connection: &connection) {
                decider.decide(PushRequest(transport: .http2, deviceToken: pushed, topic: "com.example.app", payload: Array("{}".utf8)),
                               context: DecisionContext(environment: .sandbox, authentication: .notRequired))
            }
            return decision.verdict(apnsID: "GEN", uniqueID: nil, now: clock.millisecondsSince1970)
        }
        XCTAssertEqual(push()?.reason, nil)
        XCTAssertEqual(push()?.reason, nil)
        XCTAssertEqual(push()?.reason, .tooManyRequests, "the third push in the minute")
        XCTAssertEqual(registry.rateWindow(of: token), RateWindow(pushes: 2, perMilliseconds: 60_000))
        XCTAssertEqual(engine.firingCounts, [3], "the rule fired every time without restarting the count")
        let other = String(repeating: "ff", count: 32)
        XCTAssertNil(push(other)?.reason)
        XCTAssertNil(registry.rateWindow(of: other), "other tokens are not limited")
        clock.advance(milliseconds: 60_000)
        XCTAssertNil(push()?.reason, "a new window after the server clock moved a minute")
    }

    func testARejectionBecomesAVerdictWithTheRequestIDAndATimestampFor410() {
        let decision = ScenarioDecision(action: .reject(.unregistered, timestamp: nil), numbers: .init(global: 1, connection: 1, token: 1),
                                        coreVerdict: .accepted(apnsID: "REQ", uniqueID: "u"))
        XCTAssertEqual(decision.verdict(apnsID: "GEN", uniqueID: nil, now: 42),
                       .rejected(reason: .unregistered, apnsID: "REQ", timestamp: 42))
    }

    func testRequestIndexScopes() throws {
        let engine = ScenarioEngine(scenario: try ScenarioDecoderTests.example("too-many-requests"))
        var first = ScenarioConnection(transport: .http2, index: 1)
        var second = ScenarioConnection(transport: .legacy, index: 1)
        let other = request(token: "ff")
        let actions = [
            engine.decide(request(), connection: &first) { accepted }.action,
            engine.decide(other, connection: &first) { accepted }.action,
            engine.decide(request(), connection: &second) { accepted }.action,
            engine.decide(request(), connection: &second) { accepted }.action,
            engine.decide(other, connection: &first) { accepted }.action,
        ]
        let tooMany = ScenarioAction.reject(.tooManyRequests, timestamp: nil)
        // The first token's third push comes on another connection and protocol: still its third.
        XCTAssertEqual(actions, [nil, nil, nil, tooMany, nil], "counted per token across connections and protocols")

        let dropped = ScenarioEngine(scenario: try ScenarioDecoderTests.example("dropped-connection"))
        XCTAssertEqual(run(dropped, 4), [nil, nil, .fault(.closeConnection), nil])
        XCTAssertEqual(run(dropped, 3).last, .fault(.closeConnection), "a new connection counts from 1 again")
    }

    func testMatchersOnProtocolPayloadAndSize() {
        let rules = [
            ScenarioRule(name: "legacy", match: ScenarioMatch(protocols: [.legacy]), action: .reject(.shutdown, timestamp: nil)),
            ScenarioRule(name: "title", match: ScenarioMatch(payload: [PayloadMatch(path: "aps.alert.title", equals: .string("boom"))]),
                         action: .reject(.badTopic, timestamp: nil)),
            ScenarioRule(name: "big", match: ScenarioMatch(payloadSize: IntegerRange(min: 100)), action: .reject(.payloadTooLarge, timestamp: nil)),
        ]
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: rules))
        var connection = ScenarioConnection(transport: .http2, index: 1)
        func action(_ request: ScenarioRequest) -> Reason? {
            guard case .reject(let reason, _)? = engine.decide(request, connection: &connection, core: { accepted }).action else { return nil }
            return reason
        }
        XCTAssertEqual(action(request(transport: .legacy)), .shutdown)
        XCTAssertEqual(action(request(payload: #"{"aps":{"alert":{"title":"boom"}}}"#)), .badTopic)
        XCTAssertNil(action(request(payload: #"{"aps":{"alert":{"title":"fine"}}}"#)))
        XCTAssertEqual(action(request(payload: "{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 100) + "\"}}")), .payloadTooLarge)
    }

    /// Payload matches read the value the request's one examination of its payload kept,
    /// shared with the decision core, not the bytes again: a request whose examination kept
    /// another payload's value is matched on that value. A request whose mouth kept none is
    /// examined once, for every rule that looks.
    func testPayloadMatchesReadTheRequestsOneExaminationOfItsPayload() {
        let rules = [
            ScenarioRule(name: "title", match: ScenarioMatch(payload: [PayloadMatch(path: "aps.alert.title", equals: .string("boom"))]),
                         action: .reject(.badTopic, timestamp: nil)),
        ]
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: rules))
        XCTAssertTrue(engine.readsPayload)
        XCTAssertFalse(ScenarioEngine(scenario: Scenario(name: "t", rules: [
            ScenarioRule(name: "big", match: ScenarioMatch(payloadSize: IntegerRange(min: 100)), action: .reject(.payloadTooLarge, timestamp: nil)),
        ])).readsPayload)
        var connection = ScenarioConnection(transport: .http2, index: 1)
        func action(_ request: ScenarioRequest) -> Reason? {
            guard case .reject(let reason, _)? = engine.decide(request, connection: &connection, core: { accepted }).action else { return nil }
            return reason
        }
        let boom = Array(#"{"aps":{"alert":{"title":"boom"}}}"#.utf8)
        var examined = request(payload: #"{"aps":{"alert":{"title":"fine"}}}"#)
        examined.payloadJSON = PayloadJSON(boom, keepingValue: true)
        XCTAssertEqual(action(examined), .badTopic, "the examination's value, not the bytes, is matched")
        examined.payloadJSON = PayloadJSON(boom)
        XCTAssertNil(action(examined), "an examination that kept no value leaves the rules to examine the bytes")
        XCTAssertEqual(action(request(payload: #"{"aps":{"alert":{"title":"boom"}}}"#)), .badTopic)
    }

    /// The same seed makes the same choices for the same requests; another seed does not.
    func testTheSameSeedGivesTheSameSequence() throws {
        let chaos = try ScenarioDecoderTests.example("chaos-5-percent")
        let first = run(ScenarioEngine(scenario: chaos), 2000)
        let again = run(ScenarioEngine(scenario: chaos), 2000)
        XCTAssertEqual(first, again)
        var reseeded = chaos
        reseeded.seed = 6
        XCTAssertNotEqual(run(ScenarioEngine(scenario: reseeded), 2000), first)
        let faults = first.compactMap { $0 }.count
        XCTAssertTrue((60...150).contains(faults), "about 5 % of 2000, got \(faults)")
    }

    func testLogNormalDelaysAreSeededAndShaped() throws {
        let slow = try ScenarioDecoderTests.example("slow-apns")
        func delays() -> [Double] {
            let engine = ScenarioEngine(scenario: slow)
            var connection = ScenarioConnection(transport: .http2, index: 1)
            return (0..<1001).map { _ in engine.decide(request(), connection: &connection) { accepted }.delayMilliseconds ?? -1 }
        }
        let sample = delays()
        XCTAssertEqual(sample, delays())
        let sorted = sample.sorted()
        XCTAssertEqual(sorted[500], 80, accuracy: 12, "the median is near 80 ms")
        XCTAssertGreaterThan(sorted[990], 250, "a long tail")
        XCTAssertLessThanOrEqual(sorted.last ?? 0, 1500, "capped")
        XCTAssertGreaterThan(sorted.first ?? 0, 0)
    }

    func testHandshakeRefusalsByConnectionNumber() {
        let rule = ScenarioRule(name: "second", match: ScenarioMatch(protocols: [.http2], connectionIndex: .exactly(2)),
                                action: .refuseHandshake(TLSAlert(code: 40)))
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: [rule]))
        XCTAssertNil(engine.openConnection(.http2).refusal)
        XCTAssertNil(engine.openConnection(.legacy).refusal)
        XCTAssertEqual(engine.openConnection(.http2).refusal, TLSAlert(code: 40))
        XCTAssertNil(engine.openConnection(.http2).refusal)
    }

    func testRegistryStateIsApplied() throws {
        let registry = DeviceRegistry()
        try ScenarioDecoderTests.example("unregistered-with-feedback").registry.apply(to: registry)
        XCTAssertEqual(registry.pendingFeedback.map(\.deviceToken), [token])
        XCTAssertEqual(registry.pendingFeedback.first?.topic, "com.example.app")
        XCTAssertEqual(registry.admit(token, topic: "com.example.app", environment: .sandbox, at: 0),
                       .refused(.unregistered, timestamp: 1_767_225_600_000))
    }
}
