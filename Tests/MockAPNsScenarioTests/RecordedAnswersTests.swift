import MockAPNsCore
import MockAPNsWire
import XCTest
@testable import MockAPNsScenario

/// Upstream mode's recording as rules: one per token and topic, the upstream's answer as it was
/// sent, less the ids Apple makes per request.
final class RecordedAnswersTests: XCTestCase {
    private let token = String(repeating: "AB", count: 32)
    private let gone = Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8)

    func testADifferingAnswerBecomesARespondRuleOfItsTokenAndTopic() throws {
        var answers = RecordedAnswers(name: "recorded")
        let headers = [HTTPHeader(name: "apns-id", value: "X"), HTTPHeader(name: "apns-unique-id", value: "Y"),
                       HTTPHeader(name: "content-type", value: "application/json")]
        let outcome = answers.observe(token: token, topic: "com.example.app", status: 410, headers: headers, body: gone,
                                      disagrees: true, coreAccepted: true)
        XCTAssertEqual(outcome.changed, true)
        XCTAssertNil(outcome.problem)
        let rule = try XCTUnwrap(answers.rules.first)
        XCTAssertEqual(rule.name, "recorded 410 Unregistered for \(token.lowercased()) on com.example.app")
        XCTAssertEqual(rule.stage, .afterValidation)
        XCTAssertEqual(rule.match, ScenarioMatch(protocols: [.http2], tokens: [token.lowercased()], topics: ["com.example.app"]))
        XCTAssertEqual(rule.action, .respond(ScenarioResponse(
            status: 410, headers: [HTTPHeader(name: "content-type", value: "application/json")], body: String(decoding: gone, as: UTF8.self))))

        // The same answer again changes nothing; another topic is a rule of its own.
        XCTAssertFalse(answers.observe(token: token, topic: "com.example.app", status: 410, headers: headers, body: gone,
                                       disagrees: true, coreAccepted: true).changed)
        XCTAssertTrue(answers.observe(token: token, topic: "com.example.app.voip", status: 400, headers: [],
                                      body: Array(#"{"reason":"BadDeviceToken"}"#.utf8), disagrees: true, coreAccepted: false).changed)
        XCTAssertEqual(answers.rules.count, 2)
        XCTAssertEqual(answers.rules.last?.stage, .beforeValidation, "the core refused it: the upstream's answer replaces the core's")
        // What the recorded scenario says reads back the same.
        XCTAssertEqual(try Scenario.decode(jsonText: answers.scenario.jsonText), answers.scenario)

        // An answer MockAPNs agrees with removes the token's rule for that topic only.
        XCTAssertTrue(answers.observe(token: token, topic: "com.example.app", status: 200, headers: [], body: [],
                                      disagrees: false, coreAccepted: true).changed)
        XCTAssertEqual(answers.rules.map { $0.match.topics }, [["com.example.app.voip"]])
        XCTAssertFalse(answers.observe(token: "cd", topic: "t", status: 200, headers: [], body: [], disagrees: false, coreAccepted: true).changed)
    }

    func testWhatAScenarioCannotSayIsNotRecorded() {
        var answers = RecordedAnswers(name: "recorded")
        let binary = answers.observe(token: token, topic: "t", status: 400, headers: [], body: [0xFF, 0xFE], disagrees: true, coreAccepted: true)
        XCTAssertEqual(binary.changed, false)
        XCTAssertEqual(binary.problem, "its body is not UTF-8 text")
        let field = answers.observe(token: token, topic: "t", status: 400, headers: [HTTPHeader(name: "connection", value: "close")],
                                    body: [], disagrees: true, coreAccepted: true)
        XCTAssertEqual(field.changed, false)
        XCTAssertTrue(field.problem?.contains("connection-specific") == true, field.problem ?? "")
        XCTAssertEqual(answers.rules, [])
    }
}
