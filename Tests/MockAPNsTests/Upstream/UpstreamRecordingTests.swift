import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsScenario
import MockAPNsTestSupport
import XCTest

/// `--record-scenario` over real TLS on 127.0.0.1: a provider (the real `curl --http2`) pushes
/// through one MockAPNs (the proxy, recording) to another (the upstream, playing Apple with a
/// scenario that refuses); then a fresh MockAPNs with no upstream, running the recorded file,
/// must answer the same requests as the upstream did.
final class UpstreamRecordingTests: XCTestCase {
    private static let goneToken = String(repeating: "0a", count: 32)
    private static let badToken = String(repeating: "b0", count: 32)
    private static let disallowedToken = String(repeating: "d1", count: 32)
    private static let topic = "com.example.app"
    /// A topic of the certificate's where the gone token is not gone (410 is per topic).
    private static let otherTopic = "com.example.app.complication"

    /// Apple's answers the proxy's own rules would not give for these tokens.
    private static let upstreamScenario = """
        {"name": "apple", "rules": [
          {"name": "gone", "match": {"tokens": ["\(goneToken)"], "topics": ["\(topic)"]},
           "action": {"type": "reject", "reason": "Unregistered", "timestamp": 1700000000000}},
          {"name": "bad", "match": {"tokens": ["\(badToken)"]}, "action": {"type": "reject", "reason": "BadDeviceToken"}},
          {"name": "disallowed", "match": {"tokens": ["\(disallowedToken)"]}, "action": {"type": "reject", "reason": "TopicDisallowed"}}
        ]}
        """

    /// The requests of the run, each as curl sends it: token, topic, push type.
    private static let requests: [(token: String, topic: String, pushType: String)] = [
        (goneToken, topic, "alert"),
        (goneToken, otherTopic, "complication"),
        (badToken, topic, "alert"),
        (disallowedToken, topic, "alert"),
        (Fixtures.token, topic, "alert"),
    ]

    private func push(_ curl: CurlClient, _ request: (token: String, topic: String, pushType: String)) throws -> CurlResponse {
        try curl.send(path: "/3/device/\(request.token)", headers: [("apns-topic", request.topic), ("apns-push-type", request.pushType)])
    }

    /// What must be replayed exactly: the status, every header but the per-request ids, the body.
    private func replayable(_ response: CurlResponse) -> String {
        let headers = response.headers.filter { $0.name != "apns-id" && $0.name != "apns-unique-id" }
        return "\(response.status) \(headers.map { "\($0.name): \($0.value)" }) \(response.body)"
    }

    func testTheUpstreamsAnswersAreRecordedAndReplayedOfflineByteForByte() async throws {
        let folder = Fixtures.temporaryPath("record-scenario")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/recorded.json"

        let (upstream, upstreamPorts) = try await TestServer.start()
        addTeardownBlock { try await upstream.shutdown() }
        try upstream.replaceScenario(jsonText: Self.upstreamScenario)
        let (proxy, proxyPorts) = try await TestServer.start {
            $0.upstream = "https://127.0.0.1:\(upstreamPorts.http2)"
            $0.upstreamSettings.trustRoots = Fixtures.caPath
            $0.upstreamSettings.certificateChain = Fixtures.certificateDirectory + "/client-universal.pem"
            $0.upstreamSettings.privateKey = Fixtures.certificateDirectory + "/client-universal-key.pem"
            $0.upstreamSettings.recordScenario = file
        }
        // Written at start: an empty scenario until something is recorded.
        XCTAssertEqual(try Scenario.decode(jsonText: String(contentsOfFile: file, encoding: .utf8)).rules, [])

        let curl = CurlClient(port: proxyPorts.http2)
        let first = try push(curl, Self.requests[0])
        XCTAssertEqual(first.status, 410)
        XCTAssertEqual(first.body, #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        // Written as it goes: the rule is in the file while the server still runs.
        try await poll("the first recorded rule reaches the file") {
            (try? Scenario.decode(jsonText: String(contentsOfFile: file, encoding: .utf8)))?.rules.count == 1
        }
        var upstreamAnswers = [first]
        for request in Self.requests.dropFirst() { upstreamAnswers.append(try push(curl, request)) }
        XCTAssertEqual(upstreamAnswers.map(\.status), [410, 200, 400, 400, 200])
        XCTAssertEqual(upstreamAnswers[2].body, #"{"reason":"BadDeviceToken"}"#)
        XCTAssertEqual(upstreamAnswers[3].body, #"{"reason":"TopicDisallowed"}"#)
        try await proxy.shutdown()

        // The file: one rule per token and topic the upstream answered otherwise, and valid.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let recorded = try Scenario.decode(jsonText: text)
        XCTAssertEqual(recorded.rules.map(\.name), [
            "recorded 410 Unregistered for \(Self.goneToken) on \(Self.topic)",
            "recorded 400 BadDeviceToken for \(Self.badToken) on \(Self.topic)",
            "recorded 400 TopicDisallowed for \(Self.disallowedToken) on \(Self.topic)",
        ], text)
        XCTAssertEqual(recorded.rules.first?.match, ScenarioMatch(protocols: [.http2], tokens: [Self.goneToken], topics: [Self.topic]))
        // The proxy's core accepted the gone token's push: its rule keeps validation first.
        XCTAssertEqual(recorded.rules.first?.stage, .afterValidation)
        XCTAssertFalse(text.contains("apns-id"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file + ".partial"))
        let validated = try ProcessRunner.run(Fixtures.executable, ["scenario", "validate", file])
        XCTAssertEqual(validated.status, 0, validated.stdout + validated.stderr)

        // Tomorrow, offline: the same requests, the same answers.
        let (replaying, replayPorts) = try await TestServer.start { $0.scenario = recorded }
        addTeardownBlock { try await replaying.shutdown() }
        let replayCurl = CurlClient(port: replayPorts.http2)
        for (request, original) in zip(Self.requests, upstreamAnswers) {
            let replayed = try push(replayCurl, request)
            XCTAssertEqual(replayable(replayed), replayable(original), "\(request)")
            XCTAssertNotNil(replayed.header("apns-id"), "the replaying server gives each answer an apns-id of its own")
        }
    }

    func testALaterAnswerMockAPNsAgreesWithRemovesTheTokensRule() async throws {
        let file = Fixtures.temporaryPath("record-scenario-agree") + ".json"
        let (upstream, upstreamPorts) = try await TestServer.start()
        addTeardownBlock { try await upstream.shutdown() }
        try upstream.replaceScenario(jsonText: """
            {"name": "apple", "rules": [{"name": "bad once", "times": 1, "match": {"tokens": ["\(Self.badToken)"]},
              "action": {"type": "reject", "reason": "BadDeviceToken"}}]}
            """)
        let (proxy, proxyPorts) = try await TestServer.start {
            $0.upstream = "https://127.0.0.1:\(upstreamPorts.http2)"
            $0.upstreamSettings.trustRoots = Fixtures.caPath
            $0.upstreamSettings.certificateChain = Fixtures.certificateDirectory + "/client-universal.pem"
            $0.upstreamSettings.privateKey = Fixtures.certificateDirectory + "/client-universal-key.pem"
            $0.upstreamSettings.recordScenario = file
        }
        let curl = CurlClient(port: proxyPorts.http2)
        XCTAssertEqual(try push(curl, (Self.badToken, Self.topic, "alert")).status, 400)
        try await poll("the refusal is recorded") {
            (try? Scenario.decode(jsonText: String(contentsOfFile: file, encoding: .utf8)))?.rules.count == 1
        }
        XCTAssertEqual(try push(curl, (Self.badToken, Self.topic, "alert")).status, 200)
        try await proxy.shutdown()
        XCTAssertEqual(try Scenario.decode(jsonText: String(contentsOfFile: file, encoding: .utf8)).rules, [])
    }

    func testAFileThatCannotBeWrittenStopsTheStart() async throws {
        let server = MockAPNsServer(configuration: TestServer.configuration {
            $0.upstream = "https://127.0.0.1:9"
            $0.upstreamSettings.recordScenario = Fixtures.temporaryPath("no-such-folder") + "/recorded.json"
        })
        do {
            _ = try await server.start()
            try await server.shutdown()
            XCTFail("a recording that cannot be written must stop the start")
        } catch {
            XCTAssertTrue("\(error)".contains("record scenario: cannot write"), "\(error)")
            XCTAssertTrue("\(error)".contains("No such file or directory"), "\(error)")
        }
    }

    private func poll(_ what: String, within seconds: Double = 10, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("\(what): not within \(seconds) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
