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

    func testAnUnknownMemberIsNamedWithItsPath() {
        let text = VerdictJSON.encode(sampleReport()).replacingOccurrences(of: #""connections":1,"#, with: #""connections":1,"extra":2,"#)
        XCTAssertThrowsError(try VerdictJSON.decodeReport(text)) { error in
            XCTAssertTrue("\(error)".contains("$.providers[0].extra"), "\(error)")
        }
    }

    func testTheSummaryGivesTheHeadlineAndEachRule() {
        let summary = sampleReport().summary()
        XCTAssertTrue(summary.contains("of 2 notifications tried, 1 accepted at once, 0 after retries, 0 refused, 1 lost"), summary)
        XCTAssertTrue(summary.contains("PASS unregistered-token"), summary)
        XCTAssertTrue(summary.contains("FAIL no-backoff (1)"), summary)
        XCTAssertTrue(summary.contains("FAIL lost (1)"), summary)
        XCTAssertTrue(summary.contains("retried the notification for token a1b2c3d4… 1 ms after 503 ServiceUnavailable (minimum 100 ms) [#4 #5]"), summary)
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
