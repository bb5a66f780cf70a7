import MockAPNsCore
import XCTest

private typealias SigningKey = ProviderTokenFixtures.SigningKey

/// Apple's time rules on one connection: tokens last an hour, may be replaced at most every
/// 20 minutes, and a repeated token is served from the connection's cache.
final class ProviderTokenLifetimeTests: XCTestCase {
    private static let start: Int64 = 1_800_000_000
    private let key = SigningKey("ABCDE12345", team: "TEAM123456", .sandbox)
    private let topic = "com.example.app"

    private func makeVerifier(policy: ProviderTokenPolicy = ProviderTokenPolicy()) throws -> (ProviderTokenVerifier, ServerClock) {
        let clock = ServerClock(fixedAt: Self.start * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try key.providerKey()]),
                                             clock: clock, policy: policy)
        return (verifier, clock)
    }

    private func send(_ authorization: String, _ verifier: ProviderTokenVerifier,
                      _ state: inout ProviderTokenConnectionState) -> ProviderTokenOutcome {
        verifier.authenticate(authorization: authorization, topic: topic, serverEnvironment: .sandbox, state: &state)
    }

    func testTokenExpiresAfterAnHour() throws {
        let (verifier, clock) = try makeVerifier()
        var state = ProviderTokenConnectionState()
        let token = key.authorization(iat: Self.start)
        XCTAssertNotNil(send(token, verifier, &state).identity)

        clock.advance(milliseconds: 3_599_000)
        XCTAssertNotNil(send(token, verifier, &state).identity, "59:59 old is still valid")

        clock.advance(milliseconds: 1000)
        XCTAssertEqual(send(token, verifier, &state).reason, .expiredProviderToken)
        XCTAssertEqual(send(token, verifier, &state).reason, .expiredProviderToken, "and stays expired")

        // A fresh token on the same connection is fine: the last update was an hour ago.
        XCTAssertNotNil(send(key.authorization(iat: Self.start + 3600), verifier, &state).identity)
    }

    func testExpiryUsesTheServerClockNotTheTokenArrival() throws {
        let (verifier, clock) = try makeVerifier()
        var state = ProviderTokenConnectionState()
        clock.advance(milliseconds: 3_600_000)
        XCTAssertEqual(send(key.authorization(iat: Self.start), verifier, &state).reason, .expiredProviderToken)
    }

    func testTooManyTokenUpdatesWithinTwentyMinutesThenAccepted() throws {
        let (verifier, clock) = try makeVerifier()
        var state = ProviderTokenConnectionState()
        let first = key.authorization(iat: Self.start)
        XCTAssertNotNil(send(first, verifier, &state).identity)

        clock.advance(milliseconds: 600_000)
        let second = key.authorization(iat: Self.start + 600)
        let refused = send(second, verifier, &state)
        XCTAssertEqual(refused.reason, .tooManyProviderTokenUpdates)
        XCTAssertEqual(refused.reason?.httpStatus, 429)
        // The connection stays unusable, even with the token that worked before.
        XCTAssertEqual(send(first, verifier, &state).reason, .tooManyProviderTokenUpdates)

        clock.advance(milliseconds: 599_999)
        XCTAssertEqual(send(second, verifier, &state).reason, .tooManyProviderTokenUpdates, "1 ms short of 20 minutes")

        clock.advance(milliseconds: 1)
        XCTAssertEqual(send(second, verifier, &state).identity?.issuedAt, Self.start + 600)
        XCTAssertEqual(send(second, verifier, &state).identity?.servedFromCache, true)

        // The 20 minutes now count from the second token's adoption.
        clock.advance(milliseconds: 1_199_000)
        XCTAssertEqual(send(key.authorization(iat: Self.start + 2399), verifier, &state).reason, .tooManyProviderTokenUpdates)
    }

    func testEarlyUpdateCanRefuseOnlyTheNewToken() throws {
        let (verifier, clock) = try makeVerifier(policy: ProviderTokenPolicy(earlyUpdateBlocksConnection: false))
        var state = ProviderTokenConnectionState()
        let first = key.authorization(iat: Self.start)
        XCTAssertNotNil(send(first, verifier, &state).identity)
        clock.advance(milliseconds: 60_000)
        XCTAssertEqual(send(key.authorization(iat: Self.start + 60), verifier, &state).reason, .tooManyProviderTokenUpdates)
        XCTAssertNotNil(send(first, verifier, &state).identity)
    }

    func testRepeatedTokenIsNotVerifiedAgain() throws {
        let (verifier, clock) = try makeVerifier()
        var state = ProviderTokenConnectionState()
        let token = key.authorization(iat: Self.start)

        let first = send(token, verifier, &state)
        XCTAssertEqual(first.identity?.servedFromCache, false)
        XCTAssertEqual(state.signatureVerificationCount, 1)

        for _ in 0..<100 {
            XCTAssertEqual(send(token, verifier, &state).identity?.servedFromCache, true)
        }
        XCTAssertEqual(state.signatureVerificationCount, 1, "a repeated token costs no signature check")

        // A new token after 20 minutes is verified once, then cached in its turn.
        clock.advance(milliseconds: 1_200_000)
        let next = key.authorization(iat: Self.start + 1200)
        XCTAssertEqual(send(next, verifier, &state).identity?.servedFromCache, false)
        XCTAssertEqual(send(next, verifier, &state).identity?.servedFromCache, true)
        XCTAssertEqual(state.signatureVerificationCount, 2)

        // Each connection keeps its own cache.
        var other = ProviderTokenConnectionState()
        XCTAssertEqual(send(next, verifier, &other).identity?.servedFromCache, false)
        XCTAssertEqual(other.signatureVerificationCount, 1)
    }

    func testARepeatedRequestIsStillJudgedOnTheClockAndOnItsTopic() throws {
        let scoped = SigningKey("TOPIC12345", team: "TEAM123456", .sandbox, .topic, topics: ["com.example.app"])
        let clock = ServerClock(fixedAt: Self.start * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try scoped.providerKey()]), clock: clock)
        var state = ProviderTokenConnectionState()
        let token = scoped.authorization(iat: Self.start)
        func send(_ topic: String) -> ProviderTokenOutcome {
            verifier.authenticate(authorization: token, topic: topic, serverEnvironment: .sandbox, state: &state)
        }

        let first = try XCTUnwrap(send("com.example.app").identity)
        let repeated = try XCTUnwrap(send("com.example.app").identity)
        XCTAssertEqual(repeated.allowedTopics, first.allowedTopics)
        XCTAssertEqual(repeated.keyID, "TOPIC12345")
        XCTAssertTrue(repeated.servedFromCache)
        // The same token for a topic its key does not cover is refused, then the covered one passes again.
        XCTAssertEqual(send("com.other.app").reason, .topicDisallowed)
        XCTAssertNotNil(send("com.example.app.voip").identity)
        XCTAssertNotNil(send("com.example.app").identity)
        XCTAssertEqual(send("").reason, .missingTopic)

        clock.advance(milliseconds: 3_600_000)
        XCTAssertEqual(send("com.example.app").reason, .expiredProviderToken, "a repeated request still expires")
        XCTAssertEqual(state.signatureVerificationCount, 1)
    }

    func testExtremeClockAndPolicyValuesDoNotTrap() throws {
        // The control API may set the clock anywhere and configuration may hold any interval;
        // arithmetic saturates instead of crashing the server.
        let policies = [
            ProviderTokenPolicy(),
            ProviderTokenPolicy(maximumTokenAgeSeconds: .max, futureIssuedAtToleranceSeconds: .max,
                                minimumTokenUpdateIntervalSeconds: .max),
            ProviderTokenPolicy(maximumTokenAgeSeconds: .min, futureIssuedAtToleranceSeconds: .min,
                                minimumTokenUpdateIntervalSeconds: .min),
        ]
        for policy in policies {
            for time in [Int64.min, -1, 0, Int64.max] {
                let (verifier, clock) = try makeVerifier(policy: policy)
                var state = ProviderTokenConnectionState()
                for iat in [Int64.min, Self.start, Int64.max] {
                    clock.set(millisecondsSince1970: time)
                    _ = send(key.authorization(iat: iat), verifier, &state)
                    clock.advance(milliseconds: time < 0 ? 1_200_000 : -1_200_000)
                    _ = send(key.authorization(iat: iat), verifier, &state)
                }
            }
        }
    }

    func testRefusedTokenIsVerifiedEachTime() throws {
        // Only accepted tokens are cached, so a bad token never becomes "known good".
        let (verifier, _) = try makeVerifier()
        var state = ProviderTokenConnectionState()
        let wrongSigner = SigningKey("ABCDE12345", team: "TEAM123456")
        let forged = wrongSigner.authorization(iat: Self.start)
        XCTAssertEqual(send(forged, verifier, &state).reason, .invalidProviderToken)
        XCTAssertEqual(send(forged, verifier, &state).reason, .invalidProviderToken)
        XCTAssertEqual(state.signatureVerificationCount, 2)
    }
}
