import MockAPNsTestSupport
import XCTest
@testable import MockAPNsCore
@testable import MockAPNsVerdicts
@testable import MockAPNsJournal

/// The report's JSON reads back into the same value (what `mockapns report --control` relies
/// on), its summary and JUnit say what broke, and the thresholds come from the configuration.
final class VerdictReportTests: XCTestCase {
    /// A report with a certificate provider that lost a notification and retried too soon.
    private func sampleReport() -> VerdictReport {
        var script = JournalScript()
        script.open(1, certificate: true)
        script.push(1, credentials: .certificate, answer: .ok)
        script.push(1, payload: #"{"n":2}"#, credentials: .certificate, answer: .refused(.serviceUnavailable), stream: 3)
        script.wait(2)
        script.push(1, payload: #"{"n":2}"#, credentials: .certificate, answer: .fault(.resetStream(errorCode: 2)), stream: 5)
        var settings = VerdictSettings()
        settings.backoffGrowthFactor = 1.75
        return script.judged(settings).report
    }

    func testTheJSONReadsBackIntoTheSameReport() throws {
        let report = sampleReport()
        XCTAssertEqual(report.brokenRules, [.noBackoff, .lost])
        let text = VerdictJSON.encode(report)
        XCTAssertEqual(try VerdictJSON.decodeReport(text), report)
        XCTAssertTrue(text.contains(#""totals":{"tried":2,"acceptedAtOnce":1,"acceptedAfterRetries":0,"refused":0,"lost":1,"sentAgainAfterAcceptance":0}"#), text)
        XCTAssertTrue(text.contains(#""brokenRules":["no-backoff","lost"]"#), text)
        XCTAssertTrue(text.contains(#""backoffGrowthFactor":1.75"#), text)
    }

    func testUpstreamRelaysAndDisagreementsAreCountedByTheirAnswersAndReadBack() throws {
        var judge = ProviderJudge()
        func relayed(_ sequence: UInt64, status: Int, reason: Reason?, own: Int, ownReason: Reason?, failure: String? = nil) -> JournalEvent {
            var answer = SentAnswer(status: status, reason: reason, apnsID: "A", accepted: status == 200)
            answer.upstream = UpstreamRelay(
                origin: "https://127.0.0.1:9443", latencyMicroseconds: 1200, failureKind: failure, failure: failure.map { "the upstream \($0)" },
                ownStatus: own, ownReason: ownReason,
                disagrees: failure == nil && UpstreamRelay.differs(status: status, reason: reason, ownStatus: own, ownReason: ownReason)
            )
            let record = NotificationRecord(transport: .http2, deviceToken: String(repeating: "ab", count: 32), payload: [],
                                            authentication: JournalAuthentication(.notRequired), answer: answer, connectionID: 1, streamID: 1)
            return JournalEvent(sequence: sequence, wallTimeMilliseconds: 0, monotonicNanoseconds: sequence * 1_000_000,
                                connectionID: 1, streamID: Int32(sequence * 2 - 1), kind: .notification(record))
        }
        _ = judge.consume(relayed(1, status: 200, reason: nil, own: 200, ownReason: nil))
        _ = judge.consume(relayed(2, status: 200, reason: nil, own: 400, ownReason: .badDeviceToken))
        _ = judge.consume(relayed(3, status: 200, reason: nil, own: 400, ownReason: .badDeviceToken))
        _ = judge.consume(relayed(4, status: 410, reason: .unregistered, own: 200, ownReason: nil))
        _ = judge.consume(relayed(5, status: 503, reason: .serviceUnavailable, own: 200, ownReason: nil, failure: "timedOut"))
        let report = judge.report()
        XCTAssertEqual(report.relayedToUpstream, 4)
        XCTAssertEqual(report.upstreamFailures, 1)
        XCTAssertEqual(report.disagreements, [
            "upstream 200; MockAPNs 400 BadDeviceToken": 2,
            "upstream 410 Unregistered; MockAPNs 200": 1,
        ])
        let text = VerdictJSON.encode(report)
        XCTAssertTrue(text.contains(#""upstream":{"relayed":4,"failed":1,"disagreements":3,"byAnswers":[{"upstream":"200","mockapns":"400 BadDeviceToken","count":2},{"upstream":"410 Unregistered","mockapns":"200","count":1}]}"#), text)
        XCTAssertEqual(try VerdictJSON.decodeReport(text), report)
        let summary = report.summary()
        XCTAssertTrue(summary.contains("Upstream: 4 answered, 1 unanswered (503/500); 3 answers differed from MockAPNs' own"), summary)
        XCTAssertTrue(summary.contains("  2 × upstream 200; MockAPNs 400 BadDeviceToken"), summary)
        // Without upstream mode the report says nothing of it.
        XCTAssertFalse(VerdictJSON.encode(sampleReport()).contains("upstream"))
    }

    func testAnUnknownMemberIsNamedWithItsPath() {
        let text = VerdictJSON.encode(sampleReport()).replacingOccurrences(of: #""connections":1,"#, with: #""connections":1,"extra":2,"#)
        XCTAssertThrowsError(try VerdictJSON.decodeReport(text)) { error in
            XCTAssertTrue("\(error)".contains("$.providers[0].extra"), "\(error)")
        }
    }

    func testTheSummaryGivesTheHeadlineAndEachRule() {
        let summary = sampleReport().summary()
        XCTAssertTrue(summary.contains("of 2 notifications tried, 1 accepted at once, 0 after retries, 0 refused, 1 lost"), summary)
        // A passed rule says what held, a broken one what went wrong.
        XCTAssertTrue(summary.contains("PASS unregistered-token: Stopped pushing to tokens APNs called unregistered"), summary)
        XCTAssertFalse(summary.contains("PASS unregistered-token: Kept pushing"), summary)
        XCTAssertTrue(summary.contains("FAIL no-backoff (1): No backoff between retries"), summary)
        XCTAssertTrue(summary.contains("FAIL lost (1)"), summary)
        XCTAssertTrue(summary.contains("retried the notification for token a1b2c3d4… 1 ms after 503 ServiceUnavailable (minimum 100 ms) [#4 #5]"), summary)
    }

    func testTheJSONTitleOfARuleSaysWhatHeldOrWhatBroke() throws {
        let text = VerdictJSON.encode(sampleReport())
        XCTAssertTrue(text.contains(#""rule":"unregistered-token","title":"Stopped pushing to tokens APNs called unregistered","passed":true"#), text)
        XCTAssertTrue(text.contains(#""rule":"no-backoff","title":"No backoff between retries","passed":false"#), text)
    }

    func testDuplicatesAreToldApartFromTheNotificationsTried() {
        XCTAssertEqual(
            NotificationTally(sentAgainAfterAcceptance: 1).headline,
            "no new notification tried; 1 duplicate (a notification already accepted, sent and accepted again)"
        )
        XCTAssertEqual(
            NotificationTally(acceptedAtOnce: 2, sentAgainAfterAcceptance: 2).headline,
            "of 2 notifications tried, 2 accepted at once, 0 after retries, 0 refused, 0 lost; besides, 2 duplicates (notifications already accepted, sent and accepted again)"
        )
        XCTAssertEqual(NotificationTally().headline, "of 0 notifications tried, 0 accepted at once, 0 after retries, 0 refused, 0 lost")
    }

    func testJUnitHasATestCasePerRuleAndTheEvidenceInEachFailure() {
        let xml = VerdictJUnit.xml(sampleReport())
        XCTAssertTrue(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#), xml)
        XCTAssertTrue(xml.contains(#"<testsuites name="MockAPNs provider verdicts" tests="6" failures="2" errors="0" time="0">"#), xml)
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 6)
        XCTAssertTrue(xml.contains(#"<failure message="No backoff between retries: 1 finding" type="no-backoff">retriedTooSoon: "#), xml)
        XCTAssertTrue(xml.contains("(notifications #4, #5) (connections c1)"), xml)
        XCTAssertTrue(xml.contains(#"<property name="notifications.lost" value="1"/>"#), xml)
        // The subject's comma and quotes are escaped where they stand in attributes.
        XCTAssertEqual(VerdictJUnit.escape("a<b>&\"c\" 'd'\u{1}"), "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;\u{FFFD}")
    }

    func testTheSettingsReadFromJSONAndRejectUnknownKeys() throws {
        var settings = VerdictSettings()
        var reader = try JSONObjectReader(JSONParser.parse(#"{"minimumRetryDelayMilliseconds":900000,"reconnectStormConnections":3,"backoffGrowthFactor":2}"#))
        try settings.read(&reader)
        XCTAssertEqual(settings.minimumRetryDelayMilliseconds, 900_000)
        XCTAssertEqual(settings.reconnectStormConnections, 3)
        XCTAssertEqual(settings.backoffGrowthFactor, 2)
        var bad = try JSONObjectReader(JSONParser.parse(#"{"minimumRetryDelay":5}"#), path: "$.verdicts")
        XCTAssertThrowsError(try settings.read(&bad)) { error in
            XCTAssertTrue("\(error)".contains("$.verdicts.minimumRetryDelay"), "\(error)")
        }
        var negative = try JSONObjectReader(JSONParser.parse(#"{"backoffRunLength":1}"#))
        XCTAssertThrowsError(try settings.read(&negative))
    }
}
