import MockAPNsTestSupport
import XCTest
@testable import MockAPNsCore
@testable import MockAPNsVerdicts
@testable import MockAPNsJournal

/// Each rule judged on journal events as the server records them: a provider that breaks
/// it, and one that keeps it, with the exact findings.
final class ProviderJudgeTests: XCTestCase {
    private let provider = ProviderIdentity.providerToken(teamID: JournalScript.team, keyID: JournalScript.key)
    private let other = "ffff0000" + String(repeating: "1", count: 56)

    private func checks(_ verdicts: [ProviderVerdict]) -> [VerdictCheck] { verdicts.map(\.check) }

    // MARK: 1. Unregistered tokens

    func testAPushAfterUnregisteredIsFound() {
        var script = JournalScript()
        script.open(1)
        let gone = script.push(1, answer: .refused(.unregistered))
        script.wait(300)
        let again = script.push(1, payload: #"{"aps":{"alert":"another"}}"#, answer: .refused(.unregistered), stream: 3)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [.pushAfterUnregistered])
        XCTAssertEqual(verdicts.first?.notifications, [gone, again])
        XCTAssertEqual(verdicts.first?.provider, provider)
        // 300 ms after the 410 went out, less the 80 µs the server took over the second push.
        XCTAssertEqual(verdicts.first?.figure("millisecondsAfter"), 299)
        XCTAssertEqual(report.provider(provider)?.rule(.unregisteredToken).findings, 1)
        // Two different notifications, both refused for good.
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(refused: 2))
    }

    func testAPushSentBeforeThe410OrAcceptedAfterReRegistrationIsNotFound() {
        var script = JournalScript()
        script.open(1)
        // In flight together: the second was sent before the first's 410 went out.
        script.push(1, answer: .refused(.unregistered), stream: 1, handlingMicroseconds: 80)
        script.wait(1)
        script.push(1, payload: #"{"n":2}"#, answer: .refused(.unregistered), stream: 3, handlingMicroseconds: 5_000)
        // Accepted later: the device registered again, so pushing to it is right.
        script.wait(60_000)
        script.push(1, token: "a1b2c3d4" + String(repeating: "0", count: 56), payload: #"{"n":3}"#, answer: .ok, stream: 5)
        script.wait(1000)
        script.push(1, payload: #"{"n":4}"#, answer: .ok, stream: 7)
        XCTAssertEqual(checks(script.judged().verdicts), [])
    }

    /// The notification accepted on a connection that then closed, sent again after its token
    /// was unregistered: each 410 reached the provider, so the first is a refusal and every
    /// push after it is one to an unregistered token, however the accepting connection ended
    /// (a drop by the server, where the acceptance may never have reached the provider, or
    /// the client's own clean close).
    func testA410ToANotificationAcceptedBeforeIsARefusalAndPushesAfterItAreFound() {
        for side in [ClosingSide.server, .client] {
            var script = JournalScript()
            script.open(1)
            script.push(1, answer: .ok)
            script.close(1, by: side)
            script.wait(200)
            var refusals: [UInt64] = []
            for connection in UInt64(2)...4 {
                script.open(connection)
                refusals.append(script.push(connection, answer: .refused(.unregistered)))
                script.close(connection, by: .client)
                script.wait(100)
            }
            let (verdicts, report) = script.judged()
            XCTAssertEqual(checks(verdicts), [.pushAfterUnregistered, .pushAfterUnregistered], "closed by \(side)")
            XCTAssertEqual(verdicts.map(\.notifications), [[refusals[0], refusals[1]], [refusals[1], refusals[2]]], "closed by \(side)")
            XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAtOnce: 1, refused: 1), "closed by \(side)")
            XCTAssertEqual(report.brokenRules, [.unregisteredToken], "closed by \(side)")
        }
    }

    /// Unregistered, then sent twice back to back on the gateway: the second frame, and any
    /// other to that token written before the error packet could be read, was dropped by the
    /// close. Neither is a push after the refusal nor a notification lost. A push after the
    /// connection is over is one, worded with the status the gateway sent, not HTTP's 410.
    func testLegacyFramesInFlightWhenTheErrorWentOutAreNeitherPushesAfterItNorLost() {
        var script = JournalScript()
        script.open(1, certificate: true, transport: .legacy)
        let refused = script.legacyPush(1, identifier: 1, answer: .legacyRefusal(.unregistered, identifier: 1))
        script.legacyPush(1, identifier: 2, answer: .droppedAfterError, dropped: true)
        script.legacyPush(1, payload: #"{"aps":{"alert":"another"}}"#, identifier: 3, answer: .droppedAfterError, dropped: true)
        script.close(1, by: .server, transport: .legacy)
        let inFlight = script.judged()
        XCTAssertEqual(checks(inFlight.verdicts), [])
        XCTAssertEqual(inFlight.report.totals, NotificationTally(refused: 1))
        XCTAssertEqual(inFlight.report.brokenRules, [])

        script.wait(1000)
        script.open(2, certificate: true, transport: .legacy)
        let again = script.legacyPush(2, identifier: 4, answer: .legacyRefusal(.unregistered, identifier: 4))
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [.pushAfterUnregistered])
        XCTAssertEqual(verdicts.first?.notifications, [refused, again])
        let message = verdicts.first?.message ?? ""
        XCTAssertTrue(message.contains("answered status 8 (Unregistered)"), message)
        XCTAssertFalse(message.contains("410"), message)
        XCTAssertEqual(report.totals.lost, 0)
    }

    /// A frame dropped after an error on its connection is still lost when its token was not
    /// the one refused: Apple discards it, and the provider must send it again.
    func testALegacyFrameDroppedAfterAnotherTokensErrorIsLostUntilSentAgain() {
        var script = JournalScript()
        script.open(1, certificate: true, transport: .legacy)
        script.legacyPush(1, identifier: 1, answer: .legacyRefusal(.unregistered, identifier: 1))
        let dropped = script.legacyPush(1, token: other, identifier: 2, answer: .droppedAfterError, dropped: true)
        script.close(1, by: .server, transport: .legacy)
        let lost = script.judged().report
        XCTAssertEqual(lost.totals, NotificationTally(refused: 1, lost: 1))
        XCTAssertEqual(lost.providers.first?.rule(.lost).examples.map(\.notifications), [[dropped]])
        script.wait(500)
        script.open(2, certificate: true, transport: .legacy)
        script.legacyPush(2, token: other, identifier: 3)
        XCTAssertEqual(script.judged().report.totals, NotificationTally(acceptedAfterRetries: 1, refused: 1))
    }

    // MARK: 2. Permanent refusals

    func testRetryingAPermanentRefusalIsFound() {
        for reason in [Reason.badDeviceToken, .payloadTooLarge, .deviceTokenNotForTopic, .topicDisallowed, .badPriority] {
            var script = JournalScript()
            script.open(1)
            let first = script.push(1, priority: 10, answer: .refused(reason))
            script.wait(2000)
            let second = script.push(1, priority: 10, answer: .refused(reason), stream: 3)
            let (verdicts, report) = script.judged()
            XCTAssertEqual(checks(verdicts), [.retriedPermanentRefusal], "\(reason)")
            XCTAssertEqual(verdicts.first?.notifications, [first, second], "\(reason)")
            XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(refused: 1), "\(reason)")
        }
    }

    func testAFixedRequestOrNewCredentialsAreNotARetryOfAPermanentRefusal() {
        var script = JournalScript()
        script.open(1)
        // BadPriority: sent again with the priority fixed.
        script.push(1, priority: 7, answer: .refused(.badPriority))
        script.wait(100)
        script.push(1, priority: 10, answer: .ok, stream: 3)
        // InvalidProviderToken: the credentials were at fault, not the notification.
        script.push(1, token: other, answer: .refused(.invalidProviderToken), stream: 5)
        script.wait(500)
        script.push(1, token: other, answer: .ok, stream: 7)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [])
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAfterRetries: 2))
    }

    /// What made a request wrong is part of what it is: `apns-topic` sent twice, refused with
    /// `DuplicateHeaders`, then sent once and accepted, was fixed; sent twice again, it was
    /// sent again unchanged.
    func testARequestRidOfWhatMadeItWrongIsAFixNotARetry() {
        let twice = "apns-topic sent 2 times"
        var fixed = JournalScript()
        fixed.open(1)
        fixed.push(1, answer: .refused(.duplicateHeaders), problem: twice)
        fixed.wait(100)
        fixed.push(1, answer: .ok, stream: 3)
        let (verdicts, report) = fixed.judged()
        XCTAssertEqual(checks(verdicts), [])
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAfterRetries: 1))

        var unchanged = JournalScript()
        unchanged.open(1)
        let first = unchanged.push(1, answer: .refused(.duplicateHeaders), problem: twice)
        unchanged.wait(100)
        let second = unchanged.push(1, answer: .refused(.duplicateHeaders), stream: 3, problem: twice)
        let found = unchanged.judged().verdicts
        XCTAssertEqual(checks(found), [.retriedPermanentRefusal])
        XCTAssertEqual(found.first?.notifications, [first, second])
        XCTAssertTrue(found.first?.message.contains("sent again unchanged") == true, found.first?.message ?? "")
    }

    // MARK: 3. Backoff

    func testARetryTooSoonIsFoundWithItsDelay() {
        var script = JournalScript()
        script.open(1)
        let failed = script.push(1, answer: .refused(.serviceUnavailable))
        script.wait(5)
        let retry = script.push(1, answer: .ok, stream: 3)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [.retriedTooSoon])
        XCTAssertEqual(verdicts.first?.notifications, [failed, retry])
        // 5 ms later, less the 80 µs the server took over the retry.
        XCTAssertEqual(verdicts.first?.figure("delayMilliseconds"), 4)
        XCTAssertEqual(report.provider(provider)?.retryDelays.first, [4])
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAfterRetries: 1))
    }

    func testBackoffThatDoesNotGrowIsFoundAndGrowingBackoffIsNot() {
        func run(_ delays: [Int64]) -> [VerdictCheck] {
            var script = JournalScript()
            script.open(1)
            script.push(1, answer: .refused(.tooManyRequests))
            for (index, delay) in delays.enumerated() {
                script.wait(delay)
                let last = index == delays.count - 1
                script.push(1, answer: last ? .ok : .refused(.tooManyRequests), stream: Int32(3 + 2 * index), handlingMicroseconds: 0)
            }
            return checks(script.judged().verdicts)
        }
        XCTAssertEqual(run([200, 200, 200]), [.backoffDoesNotGrow])
        XCTAssertEqual(run([400, 300, 200]), [.backoffDoesNotGrow])
        XCTAssertEqual(run([200, 400, 800]), [])
        XCTAssertEqual(run([200, 250, 500]), [])  // one step grew 2×
        XCTAssertEqual(run([200, 400]), [])        // too short a run to judge
    }

    func testTheFirstRetryAfterADropMayBeImmediateButNotTheNext() {
        var script = JournalScript()
        script.open(1)
        script.push(1, answer: .fault(.resetConnection))
        script.close(1, by: .server)
        script.open(2)
        script.wait(3)
        script.push(2, answer: .fault(.goAway(errorCode: 0, lastStreamID: 0)))
        script.close(2, by: .server)
        script.open(3)
        script.wait(3)
        script.push(3, answer: .ok)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [.retriedTooSoon])
        XCTAssertEqual(report.provider(provider)?.retryDelays.count, 2)
        var strict = VerdictSettings()
        strict.immediateRetryAfterDrop = false
        XCTAssertEqual(checks(script.judged(strict).verdicts), [.retriedTooSoon, .retriedTooSoon])
    }

    func testAPinnedServerClockStillMeasuresRealDelays() {
        var script = JournalScript()
        script.pinned = true
        script.open(1)
        script.push(1, answer: .refused(.internalServerError))
        script.wait(250)
        script.push(1, answer: .ok, stream: 3, handlingMicroseconds: 0)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [])
        XCTAssertEqual(report.provider(provider)?.retryDelays.first, [250])
    }

    // MARK: 4. Connections

    func testAStreamAfterGoAwayIsFoundOncePerConnection() {
        var script = JournalScript()
        script.open(1)
        script.push(1, answer: .ok)
        script.streamAfterGoAway(1, stream: 5, last: 3)
        script.streamAfterGoAway(1, stream: 7, last: 3)
        let (verdicts, _) = script.judged()
        XCTAssertEqual(checks(verdicts), [.streamAfterGoAway])
        XCTAssertEqual(verdicts.first?.connections, [1])
        XCTAssertEqual(verdicts.first?.figure("lastStreamID"), 3)
    }

    func testAReconnectStormAfterADropIsFound() {
        func run(reconnections: UInt64, spacing: Int64) -> [ProviderVerdict] {
            var script = JournalScript()
            script.open(1)
            script.push(1, answer: .ok)
            script.close(1, by: .server)
            for connection in 2..<(2 + reconnections) {
                script.wait(spacing)
                script.open(connection)
                script.push(connection, payload: #"{"c":\#(connection)}"#, answer: .ok)
            }
            return script.judged().verdicts.filter { $0.check == .reconnectStorm }
        }
        let storm = run(reconnections: 6, spacing: 100)
        XCTAssertEqual(storm.count, 1)
        XCTAssertEqual(storm.first?.figure("connections"), 6)
        XCTAssertEqual(storm.first?.connections, [1, 2, 3, 4, 5, 6, 7])
        XCTAssertEqual(run(reconnections: 5, spacing: 100), [])   // not more than 5
        XCTAssertEqual(run(reconnections: 6, spacing: 400), [])   // spread over more than a second
    }

    func testConnectionChurnIsFoundAndAReusedConnectionIsNot() {
        var churn = JournalScript()
        for connection in UInt64(1)...10 {
            churn.open(connection)
            churn.push(connection, payload: #"{"c":\#(connection)}"#, answer: .ok)
            churn.close(connection, by: .client)
            churn.wait(100)
        }
        XCTAssertEqual(checks(churn.judged().verdicts), [.connectionChurn])

        var reused = JournalScript()
        reused.open(1)
        for index in 1...30 {
            reused.push(1, payload: #"{"n":\#(index)}"#, answer: .ok, stream: Int32(2 * index - 1))
            reused.wait(10)
        }
        reused.close(1, by: .client)
        let (verdicts, report) = reused.judged()
        XCTAssertEqual(checks(verdicts), [])
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAtOnce: 30))
        XCTAssertEqual(report.provider(provider)?.connections, 1)
    }

    /// On the legacy gateway a payload whose length field is short leaves a tail the codec
    /// reads as a frame of an unknown command: it holds no notification, so a connection
    /// carrying one mis-framed notification is still single-use, as the server's own
    /// `legacy.connectionChurn` diagnosis counts it.
    func testAMisframedLegacyNotificationsTailDoesNotMakeAConnectionReused() {
        let protocolError = SentAnswer(legacyPacket: LegacyErrorResponse(status: .protocolError, identifier: 0), accepted: false)
        let badToken = SentAnswer(
            reason: .badDeviceToken, legacyPacket: LegacyErrorResponse(status: .invalidToken, identifier: 1), accepted: false
        )
        let cases: [(name: String, frames: (inout JournalScript, UInt64) -> Void, checks: [VerdictCheck])] = [
            ("tail answered with status 128", { script, connection in
                script.legacyPush(connection, payload: #"{"c":\#(connection)"#)
                script.legacyUnparseable(connection, byte: UInt8(ascii: "}"), answer: protocolError)
            }, [.connectionChurn]),
            ("tail closed without a packet", { script, connection in
                script.legacyPush(connection, payload: #"{"c":\#(connection)"#)
                script.legacyUnparseable(connection, byte: UInt8(ascii: "}"), answer: SentAnswer(accepted: false))
            }, [.connectionChurn]),
            ("tail dropped after the notification's refusal", { script, connection in
                script.legacyPush(connection, payload: #"{"c":\#(connection)"#, answer: badToken)
                script.legacyUnparseable(connection, byte: UInt8(ascii: "\""), answer: SentAnswer(accepted: false), dropped: true)
            }, [.connectionChurn]),
            ("a second notification", { script, connection in
                script.legacyPush(connection, payload: #"{"c":\#(connection)}"#)
                script.legacyPush(connection, payload: #"{"c":\#(connection),"n":2}"#, identifier: 2)
            }, []),
        ]
        for test in cases {
            var script = JournalScript()
            for connection in UInt64(1)...10 {
                script.open(connection, certificate: true, transport: .legacy)
                test.frames(&script, connection)
                // The gateway closes after a failure; half a second apart, the reconnections
                // are no storm.
                script.close(connection, by: .server, transport: .legacy)
                script.wait(500)
            }
            let (verdicts, report) = script.judged()
            XCTAssertEqual(checks(verdicts), test.checks, test.name)
            XCTAssertEqual(verdicts.first?.figure("connections"), test.checks.isEmpty ? nil : 10, test.name)
            let certificate = ProviderIdentity.certificate(subject: JournalScript.subject)
            XCTAssertEqual(report.provider(certificate)?.connections, 10, test.name)
        }
    }

    // MARK: 5. Provider tokens

    func testANewTokenTooSoonAcrossConnectionsIsFound() {
        var script = JournalScript()
        script.open(1)
        let first = script.push(1, credentials: .token(issuedAt: 1000), answer: .ok)
        script.wait(5 * 60_000)
        script.open(2)
        let second = script.push(2, payload: #"{"n":2}"#, credentials: .token(issuedAt: 1300), answer: .ok)
        let (verdicts, _) = script.judged()
        XCTAssertEqual(checks(verdicts), [.earlyTokenRenewal])
        XCTAssertEqual(verdicts.first?.notifications, [first, second])
        XCTAssertEqual(verdicts.first?.figure("secondsSincePrevious"), 300)
    }

    /// The judge passes a connection's repeated token by without looking at its provider: a
    /// new token on the same connection must still be seen, and an older one sent again is
    /// no renewal.
    func testANewTokenTooSoonOnTheSameConnectionIsFound() {
        var script = JournalScript()
        script.open(1)
        let first = script.push(1, credentials: .token(issuedAt: 1000), answer: .ok)
        script.push(1, payload: #"{"n":2}"#, credentials: .token(issuedAt: 1000), answer: .ok, stream: 3)
        script.wait(5 * 60_000)
        let renewed = script.push(1, payload: #"{"n":3}"#, credentials: .token(issuedAt: 1300), answer: .ok, stream: 5)
        script.push(1, payload: #"{"n":4}"#, credentials: .token(issuedAt: 1000), answer: .ok, stream: 7)
        let (verdicts, _) = script.judged()
        XCTAssertEqual(checks(verdicts), [.earlyTokenRenewal])
        XCTAssertEqual(verdicts.first?.notifications, [first, renewed])
    }

    func testATokenRenewedAfterTwentyMinutesOnAPinnedClockIsFine() {
        var script = JournalScript()
        script.pinned = true
        script.open(1)
        script.push(1, credentials: .token(issuedAt: 1000), answer: .ok)
        script.wait(10)
        script.push(1, payload: #"{"n":2}"#, credentials: .token(issuedAt: 1000), answer: .ok, stream: 3)
        script.advanceClock(25 * 60_000)
        script.push(1, payload: #"{"n":3}"#, credentials: .token(issuedAt: 2500), answer: .ok, stream: 5)
        XCTAssertEqual(checks(script.judged().verdicts), [])
    }

    func testExpiredTokensAreFoundOncePerConnectionAndGoToTheConnectionsProvider() {
        var script = JournalScript()
        script.open(1)
        script.push(1, credentials: .rejected(.expiredProviderToken), answer: .refused(.expiredProviderToken))
        script.push(1, payload: #"{"n":2}"#, credentials: .rejected(.expiredProviderToken), answer: .refused(.expiredProviderToken), stream: 3)
        script.wait(300)
        // Renewed: the token is accepted, which tells who the connection belongs to.
        script.push(1, credentials: .token(issuedAt: 5000), answer: .ok, stream: 5)
        script.push(1, payload: #"{"n":2}"#, credentials: .token(issuedAt: 5000), answer: .ok, stream: 7)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [.expiredProviderToken])
        XCTAssertEqual(verdicts.first?.provider, provider)
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAfterRetries: 2))
        XCTAssertEqual(report.provider(provider)?.rule(.tokenMisuse).findings, 1)
    }

    // MARK: 6. Lost notifications

    func testTheHeadlineCountsAtOnceAfterRetriesRefusedAndLost() {
        var script = JournalScript()
        script.open(1, certificate: true)
        for index in 0..<6 {
            script.push(1, payload: #"{"n":\#(index)}"#, credentials: .certificate, answer: .ok, stream: Int32(1 + 2 * index))
        }
        script.push(1, token: other, credentials: .certificate, answer: .refused(.internalServerError), stream: 21)
        script.wait(500)
        script.push(1, token: other, credentials: .certificate, answer: .ok, stream: 23)
        let lost = script.push(1, payload: #"{"lost":1}"#, credentials: .certificate, answer: .fault(.resetStream(errorCode: 2)), stream: 25)
        script.push(1, payload: #"{"bad":1}"#, credentials: .certificate, answer: .refused(.badDeviceToken), stream: 27)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [])
        let certificate = ProviderIdentity.certificate(subject: JournalScript.subject)
        let tally = report.provider(certificate)?.notifications
        XCTAssertEqual(tally, NotificationTally(acceptedAtOnce: 6, acceptedAfterRetries: 1, refused: 1, lost: 1))
        XCTAssertEqual(tally?.headline, "of 9 notifications tried, 6 accepted at once, 1 after retries, 1 refused, 1 lost")
        let outcome = report.provider(certificate)?.rule(.lost)
        XCTAssertEqual(outcome?.passed, false)
        XCTAssertEqual(outcome?.examples.map(\.notifications), [[lost]])
        XCTAssertEqual(report.brokenRules, [.lost])
    }

    func testTheSameApnsIDLinksARetryWhoseContentChanged() {
        var script = JournalScript()
        script.open(1)
        let id = "6E5A7D3C-1B2A-4C8F-9E0D-112233445566"
        script.push(1, payload: #"{"v":1}"#, apnsID: id, answer: .refused(.serviceUnavailable))
        script.wait(1000)
        script.push(1, payload: #"{"v":2}"#, apnsID: id, answer: .ok, stream: 3)
        let report = script.judged().report
        XCTAssertEqual(report.provider(provider)?.notifications, NotificationTally(acceptedAfterRetries: 1))
        XCTAssertEqual(report.provider(provider)?.retryDelays.first, [999])
    }

    func testANotificationSentAgainAfterItsAcceptanceIsADuplicateNotANewOne() {
        var script = JournalScript()
        script.open(1)
        script.push(1, answer: .ok)
        script.push(1, payload: #"{"n":2}"#, answer: .ok, stream: 3)
        script.close(1, by: .server)  // the second answer was lost with the connection
        script.open(2)
        script.push(2, payload: #"{"n":2}"#, answer: .ok)
        script.push(2, payload: #"{"n":3}"#, answer: .ok, stream: 3)
        let (verdicts, report) = script.judged()
        XCTAssertEqual(checks(verdicts), [])
        let tally = report.provider(provider)?.notifications
        XCTAssertEqual(tally, NotificationTally(acceptedAtOnce: 3, sentAgainAfterAcceptance: 1))
        XCTAssertEqual(
            tally?.headline,
            "of 3 notifications tried, 3 accepted at once, 0 after retries, 0 refused, 0 lost; besides, 1 duplicate (a notification already accepted, sent and accepted again)"
        )
    }

    /// Identical payloads are the common case (a silent background push, "you have a new
    /// message"): a notification equal to one accepted earlier has every answer judged. Only
    /// one accepted at once is a duplicate, counted as sent again and not as tried.
    func testEveryAnswerToANotificationEqualToAnAcceptedOneIsJudged() {
        struct Case {
            var name: String
            /// After the first push's acceptance: each later push of the same notification,
            /// the milliseconds before it, and its answer.
            var later: [(wait: Int64, answer: SentAnswer)]
            var checks: [VerdictCheck]
            /// Which later pushes the one finding rests on (indices into `later`).
            var evidence: [Int]
            var tally: NotificationTally
        }
        let cases = [
            Case(name: "410, then pushed to again", later: [(1000, .refused(.unregistered)), (300, .refused(.unregistered))],
                 checks: [.pushAfterUnregistered], evidence: [0, 1], tally: NotificationTally(acceptedAtOnce: 1, refused: 1)),
            Case(name: "429, then retried 27 ms later", later: [(1000, .refused(.tooManyRequests)), (27, .ok)],
                 checks: [.retriedTooSoon], evidence: [0, 1], tally: NotificationTally(acceptedAtOnce: 1, acceptedAfterRetries: 1)),
            Case(name: "503, never retried", later: [(1000, .refused(.serviceUnavailable))],
                 checks: [], evidence: [], tally: NotificationTally(acceptedAtOnce: 1, lost: 1)),
            Case(name: "reset stream, never retried", later: [(1000, .fault(.resetStream(errorCode: 2)))],
                 checks: [], evidence: [], tally: NotificationTally(acceptedAtOnce: 1, lost: 1)),
            Case(name: "BadDeviceToken, then sent again", later: [(1000, .refused(.badDeviceToken)), (2000, .refused(.badDeviceToken))],
                 checks: [.retriedPermanentRefusal], evidence: [0, 1], tally: NotificationTally(acceptedAtOnce: 1, refused: 1)),
            Case(name: "accepted again", later: [(1000, .ok)],
                 checks: [], evidence: [], tally: NotificationTally(acceptedAtOnce: 1, sentAgainAfterAcceptance: 1)),
        ]
        for test in cases {
            var script = JournalScript()
            script.open(1)
            script.push(1, payload: #"{"aps":{"content-available":1}}"#, priority: 5, answer: .ok)
            var sequences: [UInt64] = []
            for (index, push) in test.later.enumerated() {
                script.wait(push.wait)
                sequences.append(script.push(1, payload: #"{"aps":{"content-available":1}}"#, priority: 5, answer: push.answer,
                                             stream: Int32(3 + 2 * index)))
            }
            let (verdicts, report) = script.judged()
            XCTAssertEqual(checks(verdicts), test.checks, test.name)
            XCTAssertEqual(verdicts.first?.notifications ?? [], test.evidence.map { sequences[$0] }, test.name)
            XCTAssertEqual(report.provider(provider)?.notifications, test.tally, test.name)
            let lost = report.provider(provider)?.rule(.lost)
            XCTAssertEqual(lost?.examples.map(\.notifications), test.tally.lost == 0 ? [] : [sequences], test.name)
        }
    }

    /// A notification sent again after the server dropped the connection that carried its
    /// acceptance may never have heard that answer: whatever the resend meets, it is the same
    /// notification sent again, not a new one (a client that resends its in-flight requests
    /// after a reset tries no more notifications than it has).
    func testARepeatAfterTheAcceptingConnectionWasDroppedIsTheSameNotification() {
        for dropped in [true, false] {
            var script = JournalScript()
            script.open(1)
            script.push(1, payload: #"{"aps":{"alert":"once"}}"#, answer: .ok)
            if dropped { script.close(1, by: .server) } else { script.close(1, by: .client) }
            script.wait(200)
            script.open(2)
            script.push(2, payload: #"{"aps":{"alert":"once"}}"#, answer: .refused(.serviceUnavailable))
            let tally = script.judged().report.provider(provider)?.notifications
            if dropped {
                XCTAssertEqual(tally, NotificationTally(acceptedAtOnce: 1, sentAgainAfterAcceptance: 1))
            } else {
                XCTAssertEqual(tally, NotificationTally(acceptedAtOnce: 1, lost: 1), "a new notification, lost")
            }
        }
    }

    /// A client that resends its requests after a reconnection (aioapns does) may resend one
    /// already accepted, with the same `apns-id`; when that resend meets a fault and is then
    /// accepted, it is still the one notification sent again, not a new one tried: the
    /// provider named it the same. The same payload with another `apns-id` is a new one.
    func testAResendWithTheAcceptedApnsIDIsTheSameNotificationWhateverItMeets() {
        for sameID in [true, false] {
            var script = JournalScript()
            let payload = #"{"aps":{"alert":"chaos 7"}}"#
            script.open(1)
            script.push(1, payload: payload, apnsID: "E40A9E09-DC75-4C7C-A829-000F454F253D", answer: .ok)
            script.close(1, by: .client)
            script.wait(200)
            script.open(2)
            let resentID = sameID ? "E40A9E09-DC75-4C7C-A829-000F454F253D" : "0C681BCB-DC3F-44BA-801E-338541049330"
            script.push(2, payload: payload, apnsID: resentID, answer: .fault(.goAway(errorCode: 2, lastStreamID: 0)))
            script.wait(500)
            script.open(3)
            script.push(3, payload: payload, apnsID: resentID, answer: .ok)
            let tally = script.judged().report.provider(provider)?.notifications
            if sameID {
                XCTAssertEqual(tally, NotificationTally(acceptedAtOnce: 1, sentAgainAfterAcceptance: 2))
            } else {
                XCTAssertEqual(tally, NotificationTally(acceptedAtOnce: 1, acceptedAfterRetries: 1), "another apns-id: a new notification")
            }
        }
    }

    func testConnectionsWithoutCredentialsAreUnidentifiedClients() {
        var script = JournalScript()
        script.open(1)
        script.close(1, by: .server)
        let report = script.judged().report
        XCTAssertEqual(report.providers.map(\.provider), [.unidentified])
        XCTAssertEqual(report.providers.first?.connections, 1)
        XCTAssertEqual(report.totals.tried, 0)
    }

    /// A journal file is input: times and delays at the limits of their types are judged
    /// without a trap.
    func testExtremeNumbersInAJournalFileAreJudgedWithoutATrap() {
        var judge = ProviderJudge()
        let answer = SentAnswer(status: 503, reason: .serviceUnavailable, accepted: false, delayMilliseconds: Int.max)
        var record = NotificationRecord(
            transport: .http2, deviceToken: "a1", payload: [], authentication: JournalAuthentication(kind: "none"), answer: answer
        )
        record.handlingMicroseconds = Int.max
        for (sequence, wall, monotonic) in [(UInt64(1), Int64.max, UInt64.max), (2, Int64.min, 0), (3, 0, UInt64.max / 2), (4, Int64.max, 1)] {
            let opened = JournalEvent(sequence: sequence * 10, wallTimeMilliseconds: wall, monotonicNanoseconds: monotonic,
                                      connectionID: sequence, streamID: nil, kind: .connectionOpened(transport: .http2, peer: nil))
            _ = judge.consume(opened)
            let pushed = JournalEvent(sequence: sequence * 10 + 1, wallTimeMilliseconds: wall, monotonicNanoseconds: monotonic,
                                      connectionID: sequence, streamID: 1, kind: .notification(record))
            _ = judge.consume(pushed)
            let closed = JournalEvent(sequence: sequence * 10 + 2, wallTimeMilliseconds: wall, monotonicNanoseconds: monotonic,
                                      connectionID: sequence, streamID: nil, kind: .connectionClosed(transport: .http2, closedBy: .server, reason: nil))
            _ = judge.consume(closed)
        }
        XCTAssertEqual(judge.report().totals.lost, 1)
    }

    func testVerdictEventsOfAnEarlierJudgingArePassedOver() {
        var script = JournalScript()
        script.open(1)
        script.push(1, answer: .refused(.badDeviceToken))
        script.wait(1000)
        script.push(1, answer: .refused(.badDeviceToken), stream: 3)
        var judge = ProviderJudge()
        var found: [ProviderVerdict] = []
        for event in script.events { found += judge.consume(event) }
        XCTAssertEqual(found.count, 1)
        let echo = JournalEvent(sequence: 99, wallTimeMilliseconds: 0, monotonicNanoseconds: 0, connectionID: 1, streamID: nil,
                                kind: .verdict(found[0]))
        XCTAssertEqual(judge.consume(echo), [])
        XCTAssertEqual(judge.report().provider(provider)?.rule(.permanentRetry).findings, 1)
    }
}

/// The fingerprint that tells notifications apart: equal for the same fields however their
/// bytes are held, different when any byte, length or field boundary differs.
final class FingerprintTests: XCTestCase {
    private func fingerprint(_ parts: [[UInt8]], contiguous: Bool = true) -> UInt64 {
        var hash = Fingerprint()
        for part in parts {
            if contiguous { hash.add(part) } else { hash.add(part.lazy.map { $0 }) }
            hash.add(UInt8(0xFF))
        }
        return hash.finished
    }

    func testTheSameBytesGiveTheSameFingerprintHoweverTheyAreHeld() {
        let payload = Array(#"{"aps":{"alert":"a fingerprint over more than eight bytes"}}"#.utf8)
        XCTAssertEqual(fingerprint([payload]), fingerprint([payload], contiguous: false))
        XCTAssertEqual(fingerprint([Array("ab".utf8), payload]), fingerprint([Array("ab".utf8), payload], contiguous: false))
    }

    func testEveryDifferenceChangesTheFingerprint() {
        let payload = Array(#"{"aps":{"alert":"hello, twenty-some bytes"}}"#.utf8)
        var lastByte = payload
        lastByte[lastByte.count - 1] ^= 1
        var firstByte = payload
        firstByte[0] ^= 0x80
        let variants: [[[UInt8]]] = [
            [payload], [lastByte], [firstByte], [payload + [0]], [Array(payload.dropLast())],
            [Array("abc".utf8), Array("def".utf8)], [Array("abcd".utf8), Array("ef".utf8)], [Array("abcdef".utf8)],
            [[0, 0, 0, 0, 0, 0, 0]], [[0, 0, 0, 0, 0, 0, 0, 0]], [],
        ]
        let fingerprints = variants.map { fingerprint($0) }
        XCTAssertEqual(Set(fingerprints).count, variants.count, "\(fingerprints)")
    }
}
