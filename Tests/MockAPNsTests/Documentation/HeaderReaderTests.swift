import Foundation
import XCTest

/// One header reader: a request's header list is walked once, by the head's builder (nghttp2's
/// header callback filling `RequestHead`, or the HTTP/1.1 request's fields read into it), and
/// every other reader asks the head for a field. The only other code that walks a list of
/// fields is the record's (what was sent, kept and redacted), the forwarding of a request
/// whole (upstream mode), HTTP/1.1's framing (which comes before a request exists), and the
/// answers' own fields. Each such place is listed below with why, by file and how many walks
/// it holds, so a new walk anywhere (a `headers.first { $0.name == ... }` in a decider, or one
/// more in a listed file) fails this test.
final class HeaderReaderTests: XCTestCase {
    /// The head's builders: they may walk the list as they like, since they are the one walk.
    static let builders: [String: String] = [
        "MockAPNsWire/RequestHead.swift": "the head itself: each field appended as it arrives, a repeated name found",
        "MockAPNsHTTP2/NGHTTP2Session.swift": "nghttp2's header callback appends each field to the stream's head",
        "MockAPNsHTTP2/StreamTable.swift": "the stream being read holds the head the callback fills",
        "MockAPNsWebPush/WebPushRequest.swift": "web push over HTTP/1.1: the request line and fields appended to a head",
    ]

    /// The walks outside the builders, by file: how many, and why each is no second reading of
    /// a request's fields.
    static let otherWalks: [String: (count: Int, why: String)] = [
        "MockAPNs/WebPush/WebPushHTTP1Handler.swift": (1, """
            HTTP/1.1: NIO's decoded fields, lowercased into the head as they are handed to its builder (the one walk)
            """),
        "MockAPNsWebPush/WebPushHTTP1Target.swift": (1, """
            a request that repeats Host, refused whatever its lines hold: its lines counted for the 400's message \
            (only after that refusal; otherwise RFC 9112's Host rules read the head)
            """),
        "MockAPNsConnections/HTTP1RequestGuard.swift": (2, """
            HTTP/1.1 framing before the request is read: Transfer-Encoding and Content-Length bound the body \
            (shared with the control port)
            """),
        "MockAPNsCore/Validation/HTTP2RequestProblem.swift": (2, """
            the record of a request refused for a repeated field names the repeated fields (only after that refusal)
            """),
        "MockAPNs/HTTP2/JournalHTTP2.swift": (2, "the record: frames' field lists kept with provider tokens redacted"),
        "MockAPNsJournal/JournalPacking.swift": (2, "the record: a frame's fields and a scripted answer's headers packed into the journal"),
        "MockAPNsJournal/Records/JournalJSON.swift": (1, "the record: a frame's fields written as JSON"),
        "MockAPNsCapture/HTTP2FrameBytes.swift": (1, "the record: a frame's recorded fields written back as an HPACK block for the capture"),
        "MockAPNsUpstream/UpstreamHop.swift": (1, "upstream mode forwards the request whole: its fields as sent"),
        "MockAPNsUpstream/UpstreamClient+Requests.swift": (1, "upstream mode: the forwarded fields given to the HTTP/2 client"),
        "MockAPNsHTTP2/HeaderListEncoder.swift": (2, "a field list handed to nghttp2 (answers, forwarded requests)"),
        "MockAPNsScenario/ScenarioRule+JSON.swift": (1, "a `respond` rule's own answer fields, written back as the rule's JSON"),
        "MockAPNsAnswer/AnswerFlow.swift": (2, "a `respond` rule's own answer fields: `apns-id` and the shape's fields added unless given"),
        "MockAPNsScenario/RecordedAnswers.swift": (1, """
            the upstream's answer fields (`--record-scenario`), kept for a rule but for the per-request ids
            """),
        "MockAPNs/Broadcast/HTTP2ConnectionBridge+Broadcast.swift": (2, """
            the upstream's answer to a relayed channel management request: its channel and request ids, for the record
            """),
        "MockAPNsCore/Decision/SentAnswer.swift": (1, "an answer's fields as written, for the record"),
        "MockAPNsCore/Model/ProviderRequest.swift": (1, "the upstream's answer, relayed: its ids found among its fields"),
        "MockAPNsConnections/HTTP1ProtocolErrorHandler.swift": (2, "an HTTP/1.1 answer's fields, counted as NIO writes them"),
        "MockAPNsControl/ControlAccessMiddleware.swift": (1, "the control API's own requests (Host lines counted), no provider's"),
        "MockAPNsControl/Dashboard/JournalEventStream.swift": (1, "the control API's own requests (Last-Event-ID), no provider's"),
        "MockAPNsControl/ControlResponseHeaders.swift": (1, "the control API's own answers: the fields every one of them carries"),
        "MockAPNsLogging/LogOutput.swift": (2, "a log line's metadata fields, no HTTP fields"),
    ]

    func testOneReaderWalksARequestsHeaderList() throws {
        let sources = Fixtures.root + "/Sources"
        let walks = try Self.walks(under: sources)
        XCTAssertNotNil(walks["MockAPNsWire/RequestHead.swift"], "the head's builder was not found")
        var unexpected: [String] = []
        for (file, lines) in walks.sorted(by: { $0.key < $1.key }) where Self.builders[file] == nil {
            let allowed = Self.otherWalks[file]?.count ?? 0
            if lines.count > allowed {
                unexpected.append("\(file): \(lines.count) walks where \(allowed) are known: " + lines.joined(separator: " | "))
            }
        }
        XCTAssertEqual(unexpected, [], "read the field from the request's head (`head[.field]`) instead of walking its list")
        let stale = Self.otherWalks.filter { (walks[$0.key]?.count ?? 0) < $0.value.count }.map(\.key).sorted()
        XCTAssertEqual(stale, [], "fewer walks than listed: lower the count (or remove the file) in `otherWalks`")
    }

    /// The detector sees the walks this test exists to stop, and not a lookup in the head.
    func testTheDetectorSeesAWalk() {
        XCTAssertTrue(Self.walksFieldList(#"let topic = request.headers.first { $0.name == "apns-topic" }?.value"#))
        XCTAssertTrue(Self.walksFieldList(#"let id = headers.first(where: { $0.name == "apns-id" })?.value"#))
        XCTAssertTrue(Self.walksFieldList("for field in push.head.fields where field.name.hasPrefix(\"apns-\") {"))
        XCTAssertTrue(Self.walksFieldList("for header in headers {"))
        XCTAssertTrue(Self.walksFieldList("for (index, header) in headers.enumerated() {"))
        XCTAssertTrue(Self.walksFieldList(#"let hosts = head.headers[canonicalForm: "host"]"#))
        XCTAssertFalse(Self.walksFieldList("let topic = request.head[.apnsTopic]"))
        XCTAssertFalse(Self.walksFieldList(#"// headers.first { $0.name == "apns-id" }"#))
    }

    /// The lines under `folder` that walk a list of fields, by file relative to it.
    static func walks(under folder: String) throws -> [String: [String]] {
        guard let files = FileManager.default.enumerator(atPath: folder) else { return [:] }
        var walks: [String: [String]] = [:]
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where walksFieldList(line) {
                walks[file, default: []].append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return walks
    }

    /// Whether `line` walks a list of header fields: reads a head's raw list, loops over a list
    /// of headers or fields, or looks for a field in one by its name.
    static func walksFieldList(_ line: some StringProtocol) -> Bool {
        let code = line.trimmingCharacters(in: .whitespaces)
        guard !code.hasPrefix("//") else { return false }
        // No `\b`: Unicode's word boundaries do not fall inside `request.head.fields`.
        if code.contains(/(?:^|[^\w])head\.fields(?!\w)/) { return true }
        guard code.contains(/(?:[hH]eaders|[fF]ields)(?!\w)/) else { return false }
        if code.contains(/for\s+(?:\w+|\([\w\s,]*\))\s+in\s+[\w.]*(?:[hH]eaders|[fF]ields)(?!\w)/) { return true }
        return code.contains(/\$0\.name(?!\w)|\.name\s*==|canonicalForm:|first\(name:|canonicalName/)
    }
}
