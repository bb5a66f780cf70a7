import MockAPNsWire
import Foundation
import MockAPNsCore
import XCTest
import MockAPNsScenario

/// Scenario files: every example decodes, and a broken file reports every mistake with the
/// JSON path, line and column, and what was expected.
final class ScenarioDecoderTests: XCTestCase {
    static let examplesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scenarios")

    static func example(_ name: String) throws -> Scenario {
        let text = try String(contentsOf: examplesDirectory.appendingPathComponent(name + ".json"), encoding: .utf8)
        return try Scenario.decode(jsonText: text)
    }

    func testEveryExampleDecodes() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examplesDirectory.path)
            .filter { $0.hasSuffix(".json") && $0 != "schema.json" }
        XCTAssertEqual(files.count, 13, "\(files)")
        for file in files {
            let name = String(file.dropLast(".json".count))
            XCTAssertEqual(try Self.example(name).name, name, file)
        }
    }

    /// A seed is any 64-bit value, as a number or as the string of digits `GET /v1/scenario`
    /// reports (so a run picked at random can be played again); anything else names itself.
    func testASeedTakesEvery64BitValueAsANumberOrDigits() throws {
        for text in ["12539804505817154371", #""12539804505817154371""#] {
            XCTAssertEqual(try Scenario.decode(jsonText: #"{"name": "n", "seed": \#(text)}"#).seed, 12_539_804_505_817_154_371, text)
        }
        XCTAssertEqual(try Scenario.decode(jsonText: #"{"name": "n", "seed": 18446744073709551615}"#).seed, UInt64.max)
        for (text, found) in [("18446744073709551616", "18446744073709551616"), (#""-1""#, "-1"), (#""0x10""#, "0x10"), ("1.5", "1.5")] {
            XCTAssertThrowsError(try Scenario.decode(jsonText: #"{"name": "n", "seed": \#(text)}"#), text) { error in
                XCTAssertTrue("\(error)".contains("$.seed"), "\(error)")
                XCTAssertTrue("\(error)".contains("found \(found)"), "\(error)")
            }
        }
    }

    func testARuleReadsAsWritten() throws {
        let scenario = try Scenario.decode(jsonText: """
            {"name": "n", "seed": 7, "connection": {"maxConcurrentStreams": 10, "goAwayAfterRequests": 3},
             "rules": [{"name": "r", "stage": "beforeValidation", "times": 2, "requiresState": "a", "setsState": "b",
                        "match": {"protocols": ["legacy"], "tokens": ["ABCD"], "priorities": [5],
                                  "authentication": {"kind": "providerToken", "teamId": "T", "keyId": "K"},
                                  "payload": [{"path": "aps.alert.title", "equals": "Hi"}],
                                  "requestIndex": {"scope": "token", "min": 2, "max": 4}, "probability": 0.5},
                        "delay": {"distribution": "uniform", "minMilliseconds": 1, "maxMilliseconds": 2},
                        "action": {"type": "goAway", "errorCode": "ENHANCE_YOUR_CALM", "lastStreamId": 7, "reason": "Shutdown"}}]}
            """)
        XCTAssertEqual(scenario.seed, 7)
        XCTAssertEqual(scenario.connection, ScenarioConnectionSettings(maxConcurrentStreams: 10, goAwayAfterRequests: 3))
        let rule = try XCTUnwrap(scenario.rules.first)
        XCTAssertEqual(rule.stage, .beforeValidation)
        XCTAssertEqual(rule.times, 2)
        XCTAssertEqual(rule.match.tokens, ["abcd"])
        XCTAssertEqual(rule.match.requestIndex, RequestIndexMatch(scope: .token, range: IntegerRange(min: 2, max: 4)))
        XCTAssertEqual(rule.match.payload, [PayloadMatch(path: "aps.alert.title", equals: .string("Hi"))])
        XCTAssertEqual(rule.delay, .uniform(minMilliseconds: 1, maxMilliseconds: 2))
        XCTAssertEqual(rule.action, .fault(.goAway(ScenarioGoAway(errorCode: 0xb, lastStream: .id(7), reason: "Shutdown"))))
    }

    /// A scripted response must be one HTTP/2 can carry: a final status, and header fields
    /// the server may send. Each refusal names the JSON path.
    func testRespondActionsAreCheckedAgainstHTTP2() throws {
        let cases: [(action: String, path: String, says: String)] = [
            (#"{"type": "respond", "status": 100}"#, "$.rules[0].action.status", "from 200 to 599"),
            (#"{"type": "respond", "status": 199}"#, "$.rules[0].action.status", "from 200 to 599"),
            (#"{"type": "respond", "status": 200, "headers": {":status": "500"}}"#, "$.rules[0].action.headers.:status", "pseudo-header"),
            (#"{"type": "respond", "status": 200, "headers": {"connection": "close"}}"#, "$.rules[0].action.headers.connection", "connection-specific"),
            (#"{"type": "respond", "status": 200, "headers": {"transfer-encoding": "chunked"}}"#, "$.rules[0].action.headers.transfer-encoding", "connection-specific"),
            (#"{"type": "respond", "status": 200, "headers": {"x header": "1"}}"#, "$.rules[0].action.headers.x header", "not a valid HTTP/2 header name"),
            (#"{"type": "respond", "status": 200, "headers": {"X-Upper": "1"}}"#, "$.rules[0].action.headers.X-Upper", "lower case"),
            (#"{"type": "respond", "status": 200, "headers": {"": "1"}}"#, "$.rules[0].action.headers.", "empty"),
            (#"{"type": "respond", "status": 200, "headers": {"x-split": "a\r\nb"}}"#, "$.rules[0].action.headers.x-split", "CR, LF or NUL"),
        ]
        for (action, path, says) in cases {
            let text = #"{"name": "n", "rules": [{"action": \#(action)}]}"#
            XCTAssertThrowsError(try Scenario.decode(jsonText: text), action) { error in
                let errors = (error as? ScenarioDecodingError)?.errors ?? []
                XCTAssertEqual(errors.map(\.path), [path], "\(errors)")
                XCTAssertTrue(errors.first?.message.contains(says) == true, "\(errors)")
            }
        }
        let good = try Scenario.decode(jsonText: #"{"name": "n", "rules": [{"action": {"type": "respond", "status": 200, "headers": {"x-custom_1": "ok"}}}]}"#)
        guard case .respond(let response) = good.rules.first?.action else { return XCTFail("\(good.rules)") }
        XCTAssertEqual(response.headers, [HTTPHeader(name: "x-custom_1", value: "ok")])
    }

    /// One broken file, several mistakes: each is reported with where it is and what was
    /// expected, in document order.
    func testEveryMistakeIsReportedWithPathLineAndColumn() {
        let text = """
            {
              "name": "broken",
              "rules": [
                { "action": { "type": "reject", "reason": "Unregisterd" } },
                { "match": { "requestIndx": {} }, "action": { "type": "stall" } },
                { "match": { "probability": 2 } , "action": { "type": "explode" } },
                { "name": "no action" }
              ],
              "conection": {}
            }
            """
        XCTAssertThrowsError(try Scenario.decode(jsonText: text)) { error in
            guard let decoding = error as? ScenarioDecodingError else { return XCTFail("\(error)") }
            let found = decoding.errors.map { "\($0.position.line):\($0.position.column) \($0.path)" }
            XCTAssertEqual(found, [
                "4:47 $.rules[0].action.reason",
                "5:18 $.rules[1].match.requestIndx",
                "6:33 $.rules[2].match.probability",
                "6:59 $.rules[2].action.type",
                "7:5 $.rules[3]",
                "9:3 $.conection",
            ], decoding.description)
            XCTAssertTrue(decoding.errors[0].message.contains("found \"Unregisterd\""), decoding.errors[0].message)
            XCTAssertTrue(decoding.errors[0].message.contains("\"Unregistered\""), "lists what is expected")
            XCTAssertTrue(decoding.errors[1].message.contains("unknown key \"requestIndx\""))
            XCTAssertTrue(decoding.errors[1].message.contains("requestIndex"), "names the keys allowed there")
            XCTAssertTrue(decoding.errors[2].message.contains("from 0.0 to 1.0"), decoding.errors[2].message)
            XCTAssertTrue(decoding.errors[4].message.contains("needs an \"action\", a \"delay\", or both"))
        }
    }

    func testSyntaxErrorsAndMissingNamesAreReported() {
        XCTAssertThrowsError(try Scenario.decode(jsonText: "{\"name\": \"x\",}")) { error in
            let errors = (error as? ScenarioDecodingError)?.errors ?? []
            XCTAssertEqual(errors.count, 1)
            XCTAssertEqual(errors.first?.position.line, 1)
        }
        XCTAssertThrowsError(try Scenario.decode(jsonText: "{}")) { error in
            XCTAssertEqual((error as? ScenarioDecodingError)?.errors.map(\.path), ["$.name"])
        }
    }

    func testHandshakeRefusalsMayNotMatchRequests() {
        let text = """
            {"name": "x", "rules": [{"match": {"tokens": ["ab"]}, "action": {"type": "refuseHandshake", "alert": "handshake_failure"}}]}
            """
        XCTAssertThrowsError(try Scenario.decode(jsonText: text)) { error in
            let errors = (error as? ScenarioDecodingError)?.errors ?? []
            XCTAssertEqual(errors.map(\.path), ["$.rules[0].match.tokens"])
        }
    }

    func testAlertsAndErrorCodesByNameOrNumber() throws {
        let scenario = try Scenario.decode(jsonText: """
            {"name": "x", "rules": [
              {"action": {"type": "refuseHandshake", "alert": "certificate_expired"}},
              {"action": {"type": "refuseHandshake", "alert": 112}},
              {"action": {"type": "resetStream", "errorCode": "REFUSED_STREAM"}},
              {"action": {"type": "resetStream", "errorCode": 2}}]}
            """)
        XCTAssertEqual(scenario.rules.map(\.action), [
            .refuseHandshake(TLSAlert(code: 45)), .refuseHandshake(TLSAlert(code: 112)),
            .fault(.resetStream(errorCode: 7)), .fault(.resetStream(errorCode: 2)),
        ])
    }
}
