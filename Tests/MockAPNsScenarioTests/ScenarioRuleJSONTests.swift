import Foundation
import MockAPNsCore
import XCTest
@testable import MockAPNsScenario

/// A rule written as JSON reads back as the same rule, and the Swift builders make the rules
/// their JSON says.
final class ScenarioRuleJSONTests: XCTestCase {
    /// Every rule of every example scenario, written and decoded again, is the rule it was.
    func testEveryExampleRuleReadsBackAsItself() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ScenarioDecoderTests.examplesDirectory.path)
            .filter { $0.hasSuffix(".json") && $0 != "schema.json" }
        var count = 0
        for file in files {
            let scenario = try ScenarioDecoderTests.example(String(file.dropLast(5)))
            for rule in scenario.rules {
                XCTAssertEqual(try ScenarioRule.decode(jsonText: rule.jsonText), rule, "\(file): \(rule.jsonText)")
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 15)
    }

    /// Each action and matcher the decoder knows, in one rule or another, written and read back.
    func testEveryActionAndMatcherReadsBackAsItself() throws {
        let texts = [
            #"{"name":"a","stage":"beforeValidation","match":{"protocols":["http2","legacy"],"tokens":["ab"],"topics":["t"],"pushTypes":["alert"],"priorities":[5,10],"authentication":{"kind":"providerToken","teamId":"T","keyId":"K"},"payloadSize":{"min":1,"max":9},"payload":[{"path":"aps.badge","equals":5},{"path":"x","exists":false}],"requestIndex":{"scope":"token","min":2,"every":3},"connectionIndex":{"equals":2},"probability":0.25},"action":{"type":"respond","status":429,"headers":{"retry-after":"5"},"body":"{}","reason":"R","legacyStatus":7},"delay":{"distribution":"lognormal","medianMilliseconds":20,"sigma":0.5,"maxMilliseconds":200},"times":3,"requiresState":"s","setsState":"t"}"#,
            #"{"action":{"type":"goAway","errorCode":2,"lastStreamId":"current","debugData":"x","closeConnection":false,"answerRequest":true},"delay":{"distribution":"uniform","minMilliseconds":1,"maxMilliseconds":2.5}}"#,
            #"{"action":{"type":"sendGarbage","hex":"00ff","insideTLS":true}}"#,
            #"{"action":{"type":"sendGarbage","length":12}}"#,
            #"{"action":{"type":"limitRate","pushes":2,"perSeconds":1.5}}"#,
            #"{"action":{"type":"refuseHandshake","alert":"handshake_failure"},"match":{"connectionIndex":{"min":2}}}"#,
            #"{"match":{"channels":["c"],"channelOperations":["create"]},"action":{"type":"resetStream","errorCode":"CANCEL"}}"#,
            #"{"action":{"type":"reject","reason":"Unregistered","timestamp":5}}"#,
            #"{"action":{"type":"lowerMaxConcurrentStreams","limit":1}}"#,
            #"{"action":{"type":"closeAfterBytes","bytes":10}}"#,
            #"{"action":{"type":"deviceOffline"}}"#,
            #"{"delay":{"milliseconds":100}}"#,
        ]
        for text in texts {
            let rule = try ScenarioRule.decode(jsonText: text)
            XCTAssertEqual(try ScenarioRule.decode(jsonText: rule.jsonText), rule, "\(text) was written \(rule.jsonText)")
        }
    }

    /// The builders make the rule their JSON spells, with the decoder's defaults.
    func testTheBuildersMakeTheRulesTheirJSONSays() throws {
        let pairs: [(ScenarioRule, String)] = [
            (.reject(.unregistered, timestamp: 7).forToken("AB12").times(1),
             #"{"match":{"tokens":["ab12"]},"action":{"type":"reject","reason":"Unregistered","timestamp":7},"times":1}"#),
            (.answer(status: 503, reason: "ServiceUnavailable", headers: ["retry-after": "120"]).forTopic("com.example.app").forPriority(10),
             #"{"match":{"topics":["com.example.app"],"priorities":[10]},"action":{"type":"respond","status":503,"headers":{"retry-after":"120"},"reason":"ServiceUnavailable"}}"#),
            (.delay(milliseconds: 250).forPushType("background").named("slow"),
             #"{"name":"slow","match":{"pushTypes":["background"]},"delay":{"milliseconds":250}}"#),
            (.accept(), #"{"stage":"beforeValidation","action":{"type":"accept"}}"#),
            (.limitRate(RateWindow(pushes: 1, perMilliseconds: 2000)), #"{"action":{"type":"limitRate","pushes":1,"perSeconds":2}}"#),
            (.goAway(errorCode: 0, reason: "Shutdown").forProtocol(.http2).withProbability(0.5),
             #"{"match":{"protocols":["http2"],"probability":0.5},"action":{"type":"goAway","reason":"Shutdown"}}"#),
            (.resetStream().whenPayload("aps.alert.title", equals: "x").whenPayload("aps.badge", equals: 2).whenPayload("n", exists: false),
             #"{"match":{"payload":[{"path":"aps.alert.title","equals":"x"},{"path":"aps.badge","equals":2},{"path":"n","exists":false}]},"action":{"type":"resetStream"}}"#),
            (.deviceOffline().requiring(state: "a").setting(state: "b").delayed(milliseconds: 5).beforeValidation(),
             #"{"stage":"beforeValidation","action":{"type":"deviceOffline"},"delay":{"milliseconds":5},"requiresState":"a","setsState":"b"}"#),
        ]
        for (built, text) in pairs {
            XCTAssertEqual(built, try ScenarioRule.decode(jsonText: text), text)
            XCTAssertEqual(try ScenarioRule.decode(jsonText: built.json), built, built.json)
        }
    }

    /// A built rule with a value out of range is refused by the decoder, with its JSON path.
    func testABuiltRuleOutOfRangeIsRefusedWithItsPath() {
        XCTAssertThrowsError(try ScenarioRule.decode(jsonText: ScenarioRule.stall().forPriority(11).json)) { error in
            XCTAssertEqual((error as? ScenarioDecodingError)?.errors.map(\.path), ["$.match.priorities[0]"])
        }
        XCTAssertThrowsError(try ScenarioRule.decode(jsonText: ScenarioRule.answer(status: 99).json)) { error in
            XCTAssertEqual((error as? ScenarioDecodingError)?.errors.map(\.path), ["$.action.status"])
        }
    }
}
