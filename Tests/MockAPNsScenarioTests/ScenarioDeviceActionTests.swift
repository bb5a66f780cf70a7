import MockAPNsCore
import Synchronization
import XCTest
import MockAPNsScenario

/// The `deviceOffline` and `deviceOnline` actions: a rule that fires takes the request's
/// device offline (or online) before its notification reaches the delivery model, and the
/// answer stays the core's.
final class ScenarioDeviceActionTests: XCTestCase {
    private let token = "a1b2c3d4"
    private let accepted = Verdict.accepted(apnsID: "ID", uniqueID: nil)

    private func request() -> ScenarioRequest {
        ScenarioRequest(transport: .http2, deviceToken: token, topic: "com.example.app", pushType: "alert",
                        priority: nil, payload: Array("{}".utf8), authentication: .notRequired)
    }

    func testTheActionsDecodeFromTheirTypes() throws {
        let scenario = try Scenario.decode(jsonText: #"""
        {"name": "phone goes dark", "rules": [
          {"name": "dark", "match": {"requestIndex": {"scope": "token", "equals": 2}}, "action": {"type": "deviceOffline"}},
          {"name": "back", "stage": "beforeValidation", "match": {"requestIndex": {"scope": "token", "equals": 4}}, "action": {"type": "deviceOnline"}}
        ]}
        """#)
        XCTAssertEqual(scenario.rules.map(\.action), [.setDevice(online: false), .setDevice(online: true)])
        XCTAssertThrowsError(try Scenario.decode(jsonText: #"{"name": "x", "rules": [{"action": {"type": "deviceOffline", "token": "ab"}}]}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.rules[0].action.token"), "\(error)")
        }
    }

    func testAFiringRuleChangesTheDeviceAndKeepsTheCoresAnswer() throws {
        let changes = Mutex<[ScenarioDeviceChange]>([])
        let scenario = try Scenario.decode(jsonText: #"""
        {"name": "s", "rules": [
          {"name": "dark", "match": {"requestIndex": {"scope": "token", "equals": 2}}, "action": {"type": "deviceOffline"}},
          {"name": "back", "stage": "beforeValidation", "match": {"requestIndex": {"scope": "token", "equals": 4}}, "action": {"type": "deviceOnline"}}
        ]}
        """#)
        let engine = ScenarioEngine(scenario: scenario, deviceChanges: { change in changes.withLock { $0.append(change) } })
        var connection = ScenarioConnection(transport: .http2, index: 1)
        var coreAsked = 0
        var verdicts: [Verdict?] = []
        for _ in 1...4 {
            let decision = engine.decide(request(), connection: &connection) { coreAsked += 1; return accepted }
            verdicts.append(decision.verdict(apnsID: "GEN", uniqueID: nil, now: 0))
        }
        XCTAssertEqual(changes.withLock { $0 }, [
            ScenarioDeviceChange(deviceToken: token, online: false, rule: "dark"),
            ScenarioDeviceChange(deviceToken: token, online: true, rule: "back"),
        ])
        // Even before validation, a device change leaves the answer to the core.
        XCTAssertEqual(coreAsked, 4)
        XCTAssertEqual(verdicts, Array(repeating: accepted, count: 4))
    }

    func testARefusedRequestFiresNoAfterValidationDeviceRule() {
        let changes = Mutex<[ScenarioDeviceChange]>([])
        let engine = ScenarioEngine(
            scenario: Scenario(name: "s", rules: [ScenarioRule(name: "dark", action: .setDevice(online: false))]),
            deviceChanges: { change in changes.withLock { $0.append(change) } })
        var connection = ScenarioConnection(transport: .http2, index: 1)
        _ = engine.decide(request(), connection: &connection) { .rejected(reason: .badTopic, apnsID: "ID", timestamp: nil) }
        XCTAssertTrue(changes.withLock { $0.isEmpty })
    }
}
