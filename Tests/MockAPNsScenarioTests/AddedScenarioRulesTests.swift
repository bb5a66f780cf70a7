import MockAPNsCore
import MockAPNsWire
import XCTest
@testable import MockAPNsScenario

/// Rules added on top of a scenario: ids, order, counts, and an engine that tries them
/// before the scenario's own rules.
final class AddedScenarioRulesTests: XCTestCase {
    private let token = String(repeating: "a1b2c3d4", count: 8)
    private let accepted = Verdict.accepted(apnsID: "ID", uniqueID: nil)

    private func request(token: String? = nil, payload: String = #"{"aps":{"alert":"hi"}}"#) -> ScenarioRequest {
        ScenarioRequest(transport: .http2, deviceToken: token ?? self.token, topic: "com.example.app", pushType: "alert",
                        priority: nil, payload: Array(payload.utf8), authentication: .notRequired)
    }

    private func decide(_ engine: ScenarioEngine, _ request: ScenarioRequest? = nil) -> ScenarioDecision {
        var connection = ScenarioConnection(transport: .http2, index: 1)
        return engine.decide(request ?? self.request(), connection: &connection) { accepted }
    }

    func testIdsAreNeverReusedAndTheNewestIsFirst() {
        let rules = AddedScenarioRules()
        let first = rules.add(.reject(.unregistered))
        let second = rules.add(.stall().named("stall"))
        XCTAssertEqual([first.id, second.id], [1, 2])
        XCTAssertEqual(first.rule.name, "added[1]", "a rule without a name is named after its id")
        XCTAssertEqual(first.rule.id, 1)
        XCTAssertEqual(second.rule.name, "stall")
        XCTAssertEqual(rules.entries.map(\.id), [2, 1])
        XCTAssertEqual(rules.remove(id: 2)?.id, 2)
        XCTAssertNil(rules.remove(id: 2), "removed once")
        XCTAssertEqual(rules.add(.stall()).id, 3, "an id is never given again, so an old handle removes nothing new")
        XCTAssertEqual(rules.removeAll(), 2)
        XCTAssertFalse(rules.hasRequestRules)
    }

    /// An added rule is tried before the scenario's rule of the same stage; removed, the
    /// scenario's rule answers again.
    func testAnAddedRuleSitsOnTopOfTheScenario() {
        let added = AddedScenarioRules()
        let base = ScenarioRule(name: "base", action: .reject(.internalServerError, timestamp: nil))
        let engine = ScenarioEngine(scenario: Scenario(name: "t", rules: [base]), seed: 1, added: added)
        XCTAssertEqual(decide(engine).rule, "base")
        let entry = added.add(ScenarioRule.reject(.unregistered, timestamp: 5).forToken(token.uppercased()))
        XCTAssertEqual(decide(engine).rule, "added[1]")
        XCTAssertEqual(decide(engine).action, .reject(.unregistered, timestamp: 5))
        XCTAssertEqual(decide(engine, request(token: String(repeating: "0f", count: 32))).rule, "base", "it matches one token only")
        XCTAssertEqual(added.firings.map(\.fired), [2])
        XCTAssertEqual(engine.firingCounts, [2], "the scenario's rule counted only the two requests it answered")
        added.remove(id: entry.id)
        XCTAssertEqual(decide(engine).rule, "base")
    }

    /// With no rule in the scenario, an added rule still decides (the engine's shortcut for a
    /// scenario without request rules asks the added rules too), and spends its `times`.
    func testAnAddedRuleDecidesOverAnEmptyScenarioForItsTimes() {
        let added = AddedScenarioRules()
        let engine = ScenarioEngine(scenario: .empty, seed: 1, added: added)
        XCTAssertNil(decide(engine).rule)
        added.add(ScenarioRule.answer(status: 503, reason: "ServiceUnavailable").times(2))
        XCTAssertEqual((0..<3).map { _ in decide(engine).rule }, ["added[1]", "added[1]", nil])
        XCTAssertEqual(engine.requestCount, 3, "requests are numbered while an added rule exists")
    }

    func testAnAddedPayloadRuleMakesTheEngineReadThePayload() {
        let added = AddedScenarioRules()
        let engine = ScenarioEngine(scenario: .empty, seed: 1, added: added)
        XCTAssertFalse(engine.readsPayload)
        let entry = added.add(ScenarioRule.stall().whenPayload("aps.alert", equals: "hi"))
        XCTAssertTrue(engine.readsPayload)
        XCTAssertEqual(decide(engine).rule, "added[1]")
        XCTAssertNil(decide(engine, request(payload: #"{"aps":{"alert":"bye"}}"#)).rule)
        added.remove(id: entry.id)
        XCTAssertFalse(engine.readsPayload)
    }

    /// Added rules share the scenario's named state: one may require it or move it.
    func testAddedRulesShareTheNamedState() {
        let added = AddedScenarioRules()
        let engine = ScenarioEngine(scenario: .empty, seed: 1, added: added)
        added.add(ScenarioRule.reject(.internalServerError).times(1).setting(state: "failed"))
        added.add(ScenarioRule.reject(.serviceUnavailable).requiring(state: "failed").times(1))
        XCTAssertEqual((0..<3).map { _ in decide(engine).action }, [
            .reject(.internalServerError, timestamp: nil), .reject(.serviceUnavailable, timestamp: nil), nil,
        ])
        XCTAssertEqual(engine.currentState, "failed")
    }

    func testAnAddedHandshakeRuleRefusesConnections() {
        let added = AddedScenarioRules()
        let engine = ScenarioEngine(scenario: .empty, seed: 1, added: added)
        XCTAssertNil(engine.openConnection(.http2).refusal)
        added.add(ScenarioRule(name: "", action: .refuseHandshake(TLSAlert(code: 40)), times: 1))
        XCTAssertEqual(engine.openConnection(.http2).refusal, TLSAlert(code: 40))
        XCTAssertNil(engine.openConnection(.http2).refusal, "times: 1")
    }
}
