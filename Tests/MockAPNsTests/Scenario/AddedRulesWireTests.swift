import MockAPNsTestSupport
import Foundation
import MockAPNs
import XCTest

/// A rule per test and a failed wait's near misses, as a Swift test that embeds the server
/// writes them (`import MockAPNs` only): pushes over HTTP/2 on a real TLS socket.
final class AddedRulesWireTests: XCTestCase {
    private let headers = [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]

    private func push(_ port: Int, token: String = Fixtures.token) throws -> CurlResponse {
        try CurlClient(port: port).send(path: "/3/device/\(token)", headers: headers, body: #"{"aps":{"alert":"hello"}}"#)
    }

    /// `withRule` answers from the rule inside its scope, on top of the loaded scenario, and
    /// takes it away at the end, also when the body throws.
    func testARuleForOneScopeAnswersOnTopOfTheScenarioAndIsRemovedAfter() async throws {
        let (server, ports) = try await TestServer.start {
            $0.scenario = try? Scenario(jsonText: #"{"name":"base","rules":[{"action":{"type":"reject","reason":"TooManyRequests"},"match":{"topics":["com.example.other"]}}]}"#)
        }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        XCTAssertEqual(server.currentScenario.name, "base")

        let answered = try await server.withRule(.reject(.unregistered, timestamp: 1_700_000_000_000).forToken(Fixtures.token)) {
            XCTAssertEqual(server.addedRules.count, 1)
            server.replaceScenario(try Scenario(jsonText: #"{"name":"replaced"}"#))
            return try push(ports.http2)
        }
        XCTAssertEqual(answered.status, 410, "the rule outlives the scenario's replacement")
        XCTAssertTrue(answered.body.contains(#""reason":"Unregistered""#), answered.body)
        XCTAssertEqual(server.addedRules, [], "removed at the end of the scope")
        XCTAssertEqual(try push(ports.http2).status, 200)

        struct Failure: Error {}
        do {
            try await server.withRule(.answer(status: 500, reason: "InternalServerError")) { throw Failure() }
        } catch is Failure {}
        XCTAssertEqual(server.addedRules, [], "removed when the scope throws")

        let stored = try server.addRule(.answer(status: 503, reason: "ServiceUnavailable").named("down"))
        XCTAssertEqual(stored.name, "down")
        XCTAssertNotNil(stored.id)
        XCTAssertEqual(try push(ports.http2).status, 503)
        XCTAssertEqual(server.notifications(matching: NotificationFilter(status: 503)).first?.rule, "down", "the record names the rule")
        XCTAssertTrue(server.removeRule(stored))
        XCTAssertFalse(server.removeRule(stored), "removed once")
    }

    /// A built rule the decoder refuses is not added, and says where it is wrong.
    func testABuiltRuleOutOfRangeIsRefused() async throws {
        let (server, _) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        XCTAssertThrowsError(try server.addRule(.stall().times(0))) { error in
            XCTAssertTrue("\(error)".contains("$.times"), "\(error)")
        }
        XCTAssertEqual(server.addedRules, [])
    }

    /// A wait that times out throws, naming the notifications that came closest and how each
    /// differed, instead of returning what it had for a later `nil != 410`.
    func testAFailedWaitThrowsItsNearMisses() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let other = String(repeating: "0f", count: 32)
        XCTAssertEqual(try push(ports.http2, token: other).status, 200)
        XCTAssertEqual(try push(ports.http2).status, 200)
        do {
            let found = try await server.waitForNotifications(
                count: 1, matching: NotificationFilter(deviceToken: Fixtures.token, status: 410), timeout: .milliseconds(200))
            XCTFail("nothing was answered 410, yet the wait returned \(found)")
        } catch {
            XCTAssertEqual(error.found, [])
            XCTAssertEqual(error.nearMisses.map(\.record.deviceToken), [Fixtures.token, other], "the closest first")
            XCTAssertEqual(error.nearMisses.first?.differences.map(\.description), ["status: expected 410, got 200"])
            XCTAssertEqual(error.nearMisses.last?.differences.map(\.condition), ["token", "status"])
            XCTAssertTrue(error.description.contains("status: expected 410, got 200"), error.description)
        }
    }
}
