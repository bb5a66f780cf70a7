import MockAPNsCore
import MockAPNsTestSupport
import XCTest
import MockAPNsJournal

/// Reading events back (what `mockapns journal` does) gives the values the server wrote: for
/// every kind, with every optional member present, reading and writing again gives the same
/// text, so a member the writer gains and the reader ignores fails here.
final class JournalJSONReadingTests: XCTestCase {

    private func event(_ kind: JournalEventKind, _ index: Int) -> JournalEvent {
        let stream: Int32? = index % 2 == 0 ? 5 : nil
        var kind = kind
        // A frame's stream is the event's (its JSON says it once).
        if case .http2Frame(var frame) = kind {
            frame.streamID = stream ?? 0
            kind = .http2Frame(frame)
        }
        return JournalEvent(sequence: UInt64(index + 1), wallTimeMilliseconds: 1_767_225_600_123, monotonicNanoseconds: 99,
                            connectionID: 4, streamID: stream, kind: kind)
    }

    func testTheSamplesCoverEveryKind() {
        XCTAssertEqual(Set(JournalEventSamples.samples.map(\.type)), Set(JournalEventKind.Name.allCases))
    }

    func testReadingThenWritingGivesTheSameText() throws {
        for (index, kind) in JournalEventSamples.samples.enumerated() {
            let text = JournalJSON.encode(event(kind, index))
            let read = try JournalJSON.decode(text)
            XCTAssertEqual(JournalJSON.encode(read), text)
            XCTAssertEqual(read.kind.type, kind.type)
        }
    }

    /// Where the JSON carries everything, the values read are the values written.
    func testReadingGivesTheValuesWritten() throws {
        for (index, kind) in JournalEventSamples.samples.enumerated() {
            if case .channelOperation = kind { continue }  // the response's headers are not in the JSON
            let written = event(kind, index)
            XCTAssertEqual(try JournalJSON.decode(JournalJSON.encode(written)), written, kind.name)
        }
    }

    func testAnUnknownMemberOrTypeIsNamed() {
        let base = #"{"seq":1,"time":0,"mono":0,"type":"fault","description":"d""#
        XCTAssertNoThrow(try JournalJSON.decode(base + "}"))
        XCTAssertThrowsError(try JournalJSON.decode(base + #","novelty":1}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.novelty"), "\(error)")
        }
        XCTAssertThrowsError(try JournalJSON.decode(#"{"seq":1,"time":0,"mono":0,"type":"telepathy"}"#)) { error in
            XCTAssertTrue("\(error)".contains("unknown event type \"telepathy\""), "\(error)")
            XCTAssertTrue("\(error)".contains("channelOperation"), "\(error)")
        }
        XCTAssertThrowsError(try JournalJSON.decode(#"{"seq":1,"time":0,"type":"fault","description":"d"}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.mono"), "\(error)")
        }
    }

    /// The timeline line says what the event holds.
    func testSummariesSayWhatHappened() {
        let lines = JournalEventSamples.samples.map(\.summary)
        XCTAssertEqual(lines[0], "http2 connection opened from 127.0.0.1:5000")
        XCTAssertEqual(lines[1], "feedback connection closed by server: idle")
        XCTAssertEqual(lines[6], "-> RST_STREAM flags=0x0 length=4 error=CANCEL")
        XCTAssertEqual(lines[13], "push legacy token=a1b2 topic=com.example.app type=alert => 410 status 8 Unregistered apns-id=id-2 (dropped): a problem")
        XCTAssertTrue(lines.contains("diagnosis legacy.connectionChurn: many [connections=120 seconds=60]"), "\(lines)")
        XCTAssertTrue(lines.contains("channel create com.example.app channel=Y2hhbm5lbA== => 201 accepted"), "\(lines)")
        // What a scenario did is in the line: the status written, the fault, the rule.
        XCTAssertTrue(lines.contains(
            "push http2 token=a1 => 503 ServiceUnavailable apns-id=B GOAWAY NO_ERROR last stream 7 (rule \"maintenance\")"
        ), "\(lines)")
        XCTAssertTrue(lines.contains("push legacy token=a2 => status 6 (rule \"status 6\")"), "\(lines)")
        XCTAssertTrue(lines.contains("push http2 token=a4 => closed after 10 more bytes"), "\(lines)")
        XCTAssertTrue(lines.contains(
            "delivery superseded (Discarded - Replaced in Storage by a Newer Notification) token=a1b2 notification #12 until=1769817600000 replaced by #14 (rule \"r\")"
        ), "\(lines)")
        XCTAssertTrue(lines.contains("delivery offline (Device Offline) token=a1b2 (rule \"phone goes dark\")"), "\(lines)")
    }
}
