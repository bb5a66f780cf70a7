@testable import MockAPNsCore
@testable import MockAPNsScenario
import MockAPNsWire
import XCTest

/// Which decisions leave the core's own answer to be sent: the one question every transport
/// asks before it writes (HTTP/2's responder and web push over HTTP/1.1 alike).
final class ScenarioDecisionTests: XCTestCase {
    func testOnlyRulesThatAnswerReplaceTheCoresAnswer() {
        let rows: [(action: ScenarioAction?, keepsCore: Bool)] = [
            (nil, true),
            (.fault(.closeConnection), true),
            (.limitRate(RateWindow(pushes: 1, perMilliseconds: 1000)), true),
            (.setDevice(online: false), true),
            (.accept, false),
            (.reject(.unregistered, timestamp: nil), false),
            (.respond(ScenarioResponse(status: 200)), false),
            (.refuseHandshake(.closeNotify), false),
        ]
        for row in rows {
            let decision = ScenarioDecision(action: row.action, numbers: .init(global: 1, connection: 1, token: 1))
            XCTAssertEqual(decision.keepsCoreVerdict, row.keepsCore, "\(String(describing: row.action))")
        }
    }
}
