import XCTest
@testable import MockAPNsCore

/// Rate windows per token, counted on the server clock: the server-wide one
/// (`registry.rateLimit`) and a token's own (control API, scenario rule, Swift API).
final class RateWindowTests: XCTestCase {
    private let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    private let other = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

    private func admit(_ registry: DeviceRegistry, _ token: String, at now: Int64) -> TokenStatus {
        registry.admit(token, topic: nil, environment: .sandbox, at: now)
    }

    /// Each row: a time and whether the push fits, under 3 pushes per 10 s for every token.
    func testTheServerWideWindowCountsEveryTokenOnItsOwn() {
        let registry = DeviceRegistry(rateWindow: RateWindow(pushes: 3, perMilliseconds: 10_000))
        let refused = TokenStatus.refused(.tooManyRequests, timestamp: nil)
        let rows: [(String, Int64, TokenStatus)] = [
            (token, 0, .deliverable), (token, 1, .deliverable), (other, 2, .deliverable), (token, 9_999, .deliverable),
            (token, 9_999, refused), (other, 9_999, .deliverable), (token, 10_000, .deliverable), (token, 10_001, .deliverable),
            (token, 19_999, .deliverable), (token, 19_999, refused),
        ]
        for (index, row) in rows.enumerated() {
            XCTAssertEqual(admit(registry, row.0, at: row.1), row.2, "row \(index)")
        }
    }

    func testATokensOwnWindowReplacesTheServerWideOneAndSettingItAgainKeepsTheCount() throws {
        let registry = DeviceRegistry(rateWindow: RateWindow(pushes: 1, perMilliseconds: 60_000))
        let own = RateWindow(pushes: 2, perMilliseconds: 1_000)
        registry.limitPushes(token, to: own)
        XCTAssertTrue(registry.hasOwnRateWindow(token))
        XCTAssertEqual(registry.rateWindow(of: token), own)
        XCTAssertEqual(registry.rateWindow(of: other), RateWindow(pushes: 1, perMilliseconds: 60_000))
        XCTAssertEqual(admit(registry, token, at: 0), .deliverable)
        registry.limitPushes(token, to: own)
        XCTAssertEqual(admit(registry, token, at: 1), .deliverable)
        let refusal = registry.admission(token, topic: nil, environment: .sandbox, at: 2)
        XCTAssertEqual(refusal.status, .refused(.tooManyRequests, timestamp: nil))
        let diagnosis = try XCTUnwrap(refusal.diagnosis)
        XCTAssertTrue(diagnosis.message.contains("this token's limit"), diagnosis.message)
        XCTAssertEqual(diagnosis.figures.first { $0.name == "millisecondsLeft" }?.value, 998)
        // A different window starts afresh.
        registry.limitPushes(token, to: RateWindow(pushes: 5, perMilliseconds: 1_000))
        XCTAssertEqual(admit(registry, token, at: 3), .deliverable)
        // Removed: the server-wide window applies again, from a fresh count.
        registry.removePushLimit(token)
        XCTAssertFalse(registry.hasOwnRateWindow(token))
        XCTAssertEqual(admit(registry, token, at: 4), .deliverable)
        XCTAssertEqual(admit(registry, token, at: 5), .refused(.tooManyRequests, timestamp: nil))
    }

    func testZeroPushesRefusesEverything() {
        let registry = DeviceRegistry()
        registry.limitPushes(token, to: RateWindow(pushes: 0, perMilliseconds: 1))
        XCTAssertEqual(admit(registry, token, at: 0), .refused(.tooManyRequests, timestamp: nil))
        XCTAssertEqual(admit(registry, token, at: 5_000), .refused(.tooManyRequests, timestamp: nil))
    }

    /// Counts whose windows ended are swept, so a load test with fresh tokens does not grow
    /// the table without bound; windows still open survive the sweep.
    func testEndedWindowsAreSwept() {
        let registry = DeviceRegistry(rateWindow: RateWindow(pushes: 1, perMilliseconds: 1_000))
        for index in 0..<5_000 {
            let fresh = String(format: "%064x", index)
            XCTAssertEqual(admit(registry, fresh, at: Int64(index) * 10), .deliverable)
        }
        XCTAssertLessThan(registry.rateCountsForTests, 1_100)
        // The last token's window (started at 49,990) is still open at 50,000.
        XCTAssertEqual(admit(registry, String(format: "%064x", 4_999), at: 50_000), .refused(.tooManyRequests, timestamp: nil))
    }

    func testAServerResetKeepsTheServerWideWindowButForgetsCounts() {
        let registry = DeviceRegistry(rateWindow: RateWindow(pushes: 1, perMilliseconds: 60_000))
        XCTAssertEqual(admit(registry, token, at: 0), .deliverable)
        registry.removeAll()
        XCTAssertEqual(registry.rateWindow, RateWindow(pushes: 1, perMilliseconds: 60_000))
        XCTAssertEqual(admit(registry, token, at: 1), .deliverable)
        registry.rateWindow = nil
        XCTAssertEqual(admit(registry, token, at: 2), .deliverable)
        XCTAssertEqual(admit(registry, token, at: 3), .deliverable)
    }

    func testWindowFiguresAreClampedAndTheClockMayJumpBack() {
        XCTAssertEqual(RateWindow(pushes: -3, perMilliseconds: 0), RateWindow(pushes: 0, perMilliseconds: 1))
        let registry = DeviceRegistry(rateWindow: RateWindow(pushes: 1, perMilliseconds: 1_000))
        XCTAssertEqual(admit(registry, token, at: 10_000), .deliverable)
        // The server clock was set back: a new window begins rather than a negative one.
        XCTAssertEqual(admit(registry, token, at: 5_000), .deliverable)
        XCTAssertEqual(admit(registry, token, at: Int64.min), .deliverable)
        XCTAssertEqual(admit(registry, token, at: Int64.max), .deliverable)
    }
}

/// A server playing both environments: each token belongs to one.
final class EnvironmentBindingTests: XCTestCase {
    private let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"

    func testTheFirstPushBindsTheTokenToItsEnvironment() throws {
        let registry = DeviceRegistry(bindsEnvironmentOnFirstPush: true)
        XCTAssertNil(registry.environment(of: token))
        XCTAssertEqual(registry.admit(token, topic: nil, environment: .production, at: 0), .deliverable)
        XCTAssertEqual(registry.environment(of: token.uppercased()), .production)
        XCTAssertEqual(registry.admit(token, topic: nil, environment: .production, at: 1), .deliverable)
        let refused = registry.admission(token, topic: nil, environment: .sandbox, at: 2)
        XCTAssertEqual(refused.status, .refused(.badDeviceToken, timestamp: nil))
        let message = try XCTUnwrap(refused.diagnosis?.message)
        XCTAssertTrue(message.contains("its first push reached the production listener"), message)
        XCTAssertTrue(message.contains("api.push.apple.com"), message)
    }

    func testASetEnvironmentWinsAndTheOtherServersDoNotBind() throws {
        let both = DeviceRegistry(bindsEnvironmentOnFirstPush: true)
        both.bind(token, to: .sandbox)
        XCTAssertEqual(both.admit(token, topic: nil, environment: .production, at: 0), .refused(.badDeviceToken, timestamp: nil))
        XCTAssertTrue(try XCTUnwrap(both.admission(token, topic: nil, environment: .production, at: 0).diagnosis).message
            .contains("set through the control API"))
        let single = DeviceRegistry()
        XCTAssertEqual(single.admit(token, topic: nil, environment: .production, at: 0), .deliverable)
        XCTAssertNil(single.environment(of: token))
        XCTAssertEqual(single.admit(token, topic: nil, environment: .sandbox, at: 0), .deliverable)
    }

    /// A feedback entry carries the environment its token was bound to on its first push.
    func testFeedbackFollowsTheBoundEnvironment() {
        let registry = DeviceRegistry(bindsEnvironmentOnFirstPush: true)
        _ = registry.admit(token, topic: nil, environment: .production, at: 0)
        registry.markUnregistered(token, since: 5)
        XCTAssertEqual(registry.drainFeedback(topics: [], environment: .sandbox), [])
        XCTAssertEqual(registry.drainFeedback(topics: [], environment: .production).map(\.deviceToken), [token])
    }
}
