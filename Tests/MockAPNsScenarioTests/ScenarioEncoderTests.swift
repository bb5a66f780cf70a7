import Foundation
import MockAPNsCore
import MockAPNsWire
import XCTest
@testable import MockAPNsScenario

/// The encoder writes what the decoder reads: every example scenario, and one using every
/// action, matcher and delay, comes back equal from its own JSON.
final class ScenarioEncoderTests: XCTestCase {
    func testEveryExampleScenarioReadsBackEqual() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ScenarioDecoderTests.examplesDirectory.path)
            .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted()
        XCTAssertGreaterThan(files.count, 5)
        for file in files {
            let text = try String(contentsOf: ScenarioDecoderTests.examplesDirectory.appendingPathComponent(file), encoding: .utf8)
            let scenario = try Scenario.decode(jsonText: text)
            XCTAssertEqual(try Scenario.decode(jsonText: scenario.jsonText), scenario, file)
        }
    }

    func testEveryActionMatcherAndDelayReadsBackEqual() throws {
        let faults: [ScenarioFault] = [
            .closeConnection, .resetConnection, .stall, .shutdown, .resetStream(errorCode: 2), .lowerMaxConcurrentStreams(3),
            .goAway(ScenarioGoAway(errorCode: 11, lastStream: .id(7), reason: "Shutdown", closeConnection: false, answerRequest: true)),
            .goAway(ScenarioGoAway(lastStream: .current, debugData: "raw \"bytes\"")),
            .sendGarbage(ScenarioGarbage(bytes: [0x00, 0xAB, 0xFF], insideTLS: true)), .sendGarbage(ScenarioGarbage(length: 12)),
            .closeAfterBytes(100),
        ]
        var actions: [ScenarioAction] = [
            .accept, .reject(.unregistered, timestamp: 1_700_000_000_000), .reject(.badDeviceToken, timestamp: nil),
            .respond(ScenarioResponse(status: 503, headers: [HTTPHeader(name: "retry-after", value: "5")], body: "{\"a\":\"b\\n\"}",
                                      legacyStatus: .shutdown)),
            .respond(ScenarioResponse(status: 429, reason: "Slow down")),
            .refuseHandshake(TLSAlert(code: 42)), .limitRate(RateWindow(pushes: 3, perMilliseconds: 1500)),
            .setDevice(online: false), .setDevice(online: true),
        ]
        actions += faults.map { .fault($0) }
        var rules = actions.enumerated().map { index, action in ScenarioRule(name: "action \(index)", action: action) }
        rules.append(ScenarioRule(
            name: "every matcher", stage: .beforeValidation,
            match: ScenarioMatch(
                protocols: [.http2, .legacy], tokens: ["A1b2"], topics: ["com.example.app", "com.example.other"], pushTypes: ["alert"],
                priorities: [5, 10], authentication: AuthenticationMatch(kind: .providerToken, teamID: "TEAM00000A", keyID: "K"),
                payloadSize: IntegerRange(min: 0, max: 4096),
                payload: [PayloadMatch(path: "aps.alert.title", equals: .string("boom")), PayloadMatch(path: "x", exists: false)],
                requestIndex: RequestIndexMatch(scope: .token, range: IntegerRange(min: 10, max: 100), every: 10),
                connectionIndex: .exactly(2), probability: 0.25, channels: ["ch"], channelOperations: [.create, .delete]
            ),
            action: .accept, delay: .logNormal(medianMilliseconds: 20, sigma: 0.5, maxMilliseconds: 250.5), times: 3,
            requiresState: "Started", setsState: "next"
        ))
        rules.append(ScenarioRule(name: "fixed", delay: .fixed(milliseconds: 12.5)))
        rules.append(ScenarioRule(name: "uniform", delay: .uniform(minMilliseconds: 1, maxMilliseconds: 9)))
        rules.append(ScenarioRule(name: "rate after", stage: .afterValidation, action: .limitRate(RateWindow(pushes: 0, perMilliseconds: 1000))))
        let scenario = Scenario(
            name: "everything", description: "all \"of\" it", seed: 42, initialState: "Begun",
            registry: ScenarioRegistryState(
                unregistered: [.init(token: "aa", since: 1, topic: "com.example.app")], expired: [.init(token: "bb", since: 2)],
                topics: [.init(token: "cc", topics: ["t1", "t2"])], feedback: [.init(token: "dd", since: 3)],
                environments: [.init(token: "ee", environment: .production)]
            ),
            connection: ScenarioConnectionSettings(maxConcurrentStreams: 7, idleTimeoutSeconds: 0.5, goAwayAfterRequests: 9),
            rules: rules
        )
        let text = scenario.jsonText
        XCTAssertEqual(try Scenario.decode(jsonText: text), scenario, text)
        // One rule a line, so a recorded file diffs rule by rule.
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("  {\"name\":") }.count, rules.count, text)
    }
}
