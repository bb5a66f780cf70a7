import Dispatch
import XCTest
@testable import MockAPNsCore

final class DeviceRegistryTests: XCTestCase {
    private let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    private let otherToken = String(repeating: "0f", count: 32)
    private let appTopics: Set<String> = ["com.example.app", "com.example.app.voip"]

    func testEveryTokenIsDeliverableByDefault() {
        let registry = DeviceRegistry()
        for environment in APNsEnvironment.allCases {
            XCTAssertEqual(registry.status(of: token, topic: "any.topic", environment: environment), .deliverable)
            XCTAssertEqual(registry.status(of: token, topic: nil, environment: environment), .deliverable)
        }
        XCTAssertEqual(registry.pendingFeedback, [])
    }

    func testEachRuleRefusesWithItsReason() {
        let rows: [(String, (DeviceRegistry) -> Void, String?, TokenStatus)] = [
            ("unregistered everywhere", { $0.markUnregistered(self.token, since: 1_000) }, "com.example.app",
             .refused(.unregistered, timestamp: 1_000)),
            ("unregistered for this topic", { $0.markUnregistered(self.token, since: 2_000, topic: "com.example.app") }, "com.example.app",
             .refused(.unregistered, timestamp: 2_000)),
            ("unregistered for another topic", { $0.markUnregistered(self.token, since: 2_000, topic: "com.example.app") }, "com.example.app.voip",
             .deliverable),
            ("expired", { $0.markExpired(self.token, since: 3_000) }, "com.example.app",
             .refused(.expiredToken, timestamp: 3_000)),
            ("bound to production", { $0.bind(self.token, to: .production) }, "com.example.app",
             .refused(.badDeviceToken, timestamp: nil)),
            ("bound to sandbox", { $0.bind(self.token, to: .sandbox) }, "com.example.app",
             .deliverable),
            ("bound to other topics", { $0.bind(self.token, toTopics: ["com.example.other"]) }, "com.example.app",
             .refused(.deviceTokenNotForTopic, timestamp: nil)),
            ("alert token to the .voip topic", { $0.bind(self.token, toTopics: ["com.example.app"]) }, "com.example.app.voip",
             .refused(.deviceTokenNotForTopic, timestamp: nil)),
            ("VoIP token to the bare bundle", { $0.bind(self.token, toTopics: ["com.example.app.voip"]) }, "com.example.app",
             .refused(.topicDisallowed, timestamp: nil)),
            ("bound topics, no topic in the request", { $0.bind(self.token, toTopics: ["com.example.other"]) }, nil,
             .deliverable),
            ("rules for another token", { $0.markUnregistered(self.otherToken, since: 1) }, "com.example.app",
             .deliverable),
        ]
        for (name, setUp, topic, expected) in rows {
            let registry = DeviceRegistry()
            setUp(registry)
            XCTAssertEqual(registry.status(of: token, topic: topic, environment: .sandbox), expected, name)
        }
    }

    func testTokensAreComparedCaseInsensitively() {
        let registry = DeviceRegistry()
        registry.markUnregistered(token.uppercased(), since: 5)
        XCTAssertEqual(registry.status(of: token, topic: nil, environment: .sandbox), .refused(.unregistered, timestamp: 5))
        XCTAssertEqual(registry.status(of: token.uppercased(), topic: nil, environment: .sandbox), .refused(.unregistered, timestamp: 5))
        XCTAssertEqual(registry.pendingFeedback.map(\.deviceToken), [token])
    }

    func testReactivationKeepsBindings() {
        let registry = DeviceRegistry()
        registry.bind(token, to: .production)
        registry.markUnregistered(token, since: 5)
        registry.markExpired(token, since: 6)
        registry.reactivate(token)
        XCTAssertEqual(registry.status(of: token, topic: nil, environment: .production), .deliverable)
        XCTAssertEqual(registry.status(of: token, topic: nil, environment: .sandbox), .refused(.badDeviceToken, timestamp: nil))
        registry.forget(token)
        XCTAssertEqual(registry.status(of: token, topic: nil, environment: .sandbox), .deliverable)
    }

    func testPushBudgetCountsAdmittedPushesPerWindow() {
        let registry = DeviceRegistry()
        registry.limitPushes(token.uppercased(), to: 2, perMilliseconds: 1_000)
        let rows: [(Int64, TokenStatus)] = [
            (0, .deliverable), (1, .deliverable), (2, .refused(.tooManyRequests, timestamp: nil)),
            (999, .refused(.tooManyRequests, timestamp: nil)), (1_000, .deliverable), (1_001, .deliverable),
            (1_002, .refused(.tooManyRequests, timestamp: nil)),
        ]
        for (now, expected) in rows {
            XCTAssertEqual(registry.admit(token, topic: nil, environment: .sandbox, at: now), expected, "at \(now)")
        }
        XCTAssertEqual(registry.status(of: token, topic: nil, environment: .sandbox), .deliverable, "status does not count")
        registry.removePushLimit(token)
        XCTAssertEqual(registry.admit(token, topic: nil, environment: .sandbox, at: 1_003), .deliverable)
    }

    func testOtherRulesComeBeforeTheBudgetAndDoNotSpendIt() {
        let registry = DeviceRegistry()
        registry.limitPushes(token, to: 1, perMilliseconds: 1_000)
        registry.bind(token, to: .production)
        XCTAssertEqual(registry.admit(token, topic: nil, environment: .sandbox, at: 0), .refused(.badDeviceToken, timestamp: nil))
        XCTAssertEqual(registry.admit(token, topic: nil, environment: .production, at: 1), .deliverable)
    }

    func testAdmitWithoutBudgetDoesNotReadTheClock() {
        let registry = DeviceRegistry()
        registry.bind(token, to: .sandbox)
        XCTAssertEqual(
            registry.admit(token, topic: nil, environment: .sandbox, at: { XCTFail("clock read"); return 0 }()),
            .deliverable
        )
    }

    // MARK: - Feedback

    func testUnregistrationIsQueuedOnce() {
        let registry = DeviceRegistry()
        registry.markUnregistered(token, since: 1_000, topic: "com.example.app")
        registry.markUnregistered(token, since: 2_000, topic: "com.example.app")
        XCTAssertEqual(registry.pendingFeedback, [
            FeedbackEntry(deviceToken: token, timestamp: 1_000, topic: "com.example.app", environment: nil),
        ])
        // Marking again moves the time APNs reports, without a second tuple.
        XCTAssertEqual(
            registry.status(of: token, topic: "com.example.app", environment: .sandbox),
            .refused(.unregistered, timestamp: 2_000)
        )
    }

    func testUnregisteringEverywhereAfterATopicQueuesOnceMore() {
        let registry = DeviceRegistry()
        registry.markUnregistered(token, since: 1_000, topic: "com.example.app")
        registry.markUnregistered(token, since: 2_000)
        registry.markUnregistered(token, since: 3_000, topic: "com.example.app.voip")
        XCTAssertEqual(registry.pendingFeedback.map(\.timestamp), [1_000, 2_000])
    }

    func testUnregisteringABoundTokenQueuesOneEntryPerTopic() {
        let registry = DeviceRegistry()
        registry.bind(token, toTopics: appTopics)
        registry.bind(token, to: .production)
        registry.markUnregistered(token, since: 9_000)
        XCTAssertEqual(registry.pendingFeedback, [
            FeedbackEntry(deviceToken: token, timestamp: 9_000, topic: "com.example.app", environment: .production),
            FeedbackEntry(deviceToken: token, timestamp: 9_000, topic: "com.example.app.voip", environment: .production),
        ])
    }

    func testReRegistrationRemovesPendingTuplesAndUnregistrationQueuesAgain() {
        let registry = DeviceRegistry()
        registry.markUnregistered(token, since: 1_000)
        registry.markUnregistered(otherToken, since: 2_000)
        registry.reactivate(token)
        XCTAssertEqual(registry.pendingFeedback.map(\.deviceToken), [otherToken], "a re-registered token is not reported as gone")
        registry.markUnregistered(token, since: 5_000)
        XCTAssertEqual(registry.pendingFeedback.map(\.timestamp), [2_000, 5_000])
    }

    func testQueueingFeedbackIsIdempotentUntilDelivered() {
        let registry = DeviceRegistry()
        XCTAssertTrue(registry.queueFeedback(token, since: 1_000))
        XCTAssertFalse(registry.queueFeedback(token, since: 2_000), "one tuple per token and topic waits at a time")
        XCTAssertEqual(registry.pendingFeedback, [
            FeedbackEntry(deviceToken: token, timestamp: 2_000, topic: nil, environment: nil),
        ])
        XCTAssertEqual(registry.status(of: token, topic: "com.example.app", environment: .sandbox), .refused(.unregistered, timestamp: 2_000))
        XCTAssertEqual(registry.drainFeedback(topics: appTopics, environment: .sandbox).map(\.timestamp), [2_000])
        // Delivered once: queueing again (a token found gone again) queues a new tuple.
        XCTAssertTrue(registry.queueFeedback(token, since: 3_000))
        XCTAssertEqual(registry.pendingFeedback.map(\.timestamp), [3_000])
        XCTAssertTrue(registry.queueFeedback(token, since: 4_000, topic: "com.example.app"), "another topic is another tuple")
        XCTAssertEqual(registry.pendingFeedback.map(\.topic), [nil, "com.example.app"])
    }

    func testQueueingFeedbackAfterAnUnregistrationWasDeliveredQueuesAgain() {
        let registry = DeviceRegistry()
        registry.markUnregistered(token, since: 1_000)
        XCTAssertEqual(registry.drainFeedback(topics: appTopics, environment: .sandbox).count, 1)
        registry.markUnregistered(token, since: 2_000)
        XCTAssertEqual(registry.pendingFeedback, [], "marking again only moves the time")
        XCTAssertTrue(registry.queueFeedback(token, since: 2_000))
        XCTAssertEqual(registry.pendingFeedback.map(\.timestamp), [2_000])
    }

    func testExpiryIsNotFeedback() {
        let registry = DeviceRegistry()
        registry.markExpired(token, since: 1_000)
        XCTAssertEqual(registry.pendingFeedback, [])
    }

    func testDrainingTakesOnlyTheCertificatesTopicsAndEnvironment() {
        let registry = DeviceRegistry()
        registry.bind(otherToken, to: .production)
        registry.markUnregistered(token, since: 1_000, topic: "com.example.app")
        registry.markUnregistered(otherToken, since: 2_000, topic: "com.example.app")
        registry.markUnregistered(token, since: 3_000, topic: "com.example.other")
        registry.markUnregistered(String(repeating: "ee", count: 32), since: 4_000)

        let sandboxApp = registry.drainFeedback(topics: appTopics, environment: .sandbox)
        XCTAssertEqual(sandboxApp.map(\.timestamp), [1_000, 4_000], "own topic, plus the entry for any topic")
        XCTAssertEqual(registry.drainFeedback(topics: appTopics, environment: .sandbox), [], "drained entries are gone")

        let productionApp = registry.drainFeedback(topics: appTopics, environment: .production)
        XCTAssertEqual(productionApp.map(\.timestamp), [2_000])
        XCTAssertEqual(productionApp.first?.secondsSince1970, 2)

        XCTAssertEqual(registry.pendingFeedback.map(\.topic), ["com.example.other"])
        XCTAssertEqual(registry.drainFeedback(topics: ["com.example.other"], environment: .production).count, 1)
        XCTAssertEqual(registry.pendingFeedback, [])
    }

    func testRemoveAllForgetsTokensAndFeedback() {
        let registry = DeviceRegistry()
        registry.markUnregistered(token, since: 1)
        registry.removeAll()
        XCTAssertEqual(registry.status(of: token, topic: nil, environment: .sandbox), .deliverable)
        XCTAssertEqual(registry.pendingFeedback, [])
    }

    func testConcurrentUnregistrationsQueueEachTokenOnce() {
        let registry = DeviceRegistry()
        let tokens = (0..<200).map { String(repeating: String(format: "%02x", $0 % 256), count: 32) }
        DispatchQueue.concurrentPerform(iterations: 2_000) { iteration in
            let token = tokens[iteration % tokens.count]
            registry.markUnregistered(token, since: Int64(iteration))
            _ = registry.status(of: token, topic: "com.example.app", environment: .sandbox)
        }
        XCTAssertEqual(registry.pendingFeedback.count, tokens.count)
        XCTAssertEqual(Set(registry.pendingFeedback.map(\.deviceToken)), Set(tokens))
    }
}
