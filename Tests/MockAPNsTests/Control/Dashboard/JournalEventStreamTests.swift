import Foundation
@testable import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// `GET /v1/events/stream` over real sockets: live delivery pushed by the journal, resume from
/// `Last-Event-ID`, and the "skipped" notice when a reader's buffer overflows.
final class JournalEventStreamTests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private var controlPort: Int { ports.control ?? 0 }

    private func push(_ number: Int, token: String = Fixtures.token) throws {
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")],
            body: #"{"aps":{"alert":{"title":"Hello","body":"message \#(number)"}}}"#)
        XCTAssertEqual(response.status, 200)
    }

    private func json(_ message: EventStreamClient.Message) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(message.data.utf8)) as? [String: Any])
    }

    func testEventsArriveAsTheyAreRecorded() throws {
        let stream = try EventStreamClient(port: controlPort, path: "/v1/events/stream?type=notification")
        XCTAssertEqual(try stream.status(), 200)
        XCTAssertTrue(stream.head.lowercased().contains("content-type: text/event-stream"), stream.head)
        try push(1)
        let message = try stream.next()
        let event = try json(message)
        XCTAssertEqual(event["type"] as? String, "notification")
        XCTAssertEqual(message.id, (event["seq"] as? Int).map(String.init))
        let record = try XCTUnwrap(event["notification"] as? [String: Any])
        XCTAssertEqual(record["deviceToken"] as? String, Fixtures.token)
        XCTAssertEqual(record["payload"] as? String, #"{"aps":{"alert":{"title":"Hello","body":"message 1"}}}"#)
    }

    /// The journal pushes to the stream: it looks at the journal's history once, when it
    /// opens, and every later event reaches it through its reader, without another look.
    func testTheJournalPushesToTheStreamAfterItsOneLook() throws {
        let journal = server.journal
        let readersBefore = journal.statistics.readers
        let stream = try EventStreamClient(port: controlPort, path: "/v1/events/stream?type=notification")
        XCTAssertEqual(try stream.status(), 200)
        for number in 1...3 {
            try push(number)
            let record = try XCTUnwrap(try json(try stream.next())["notification"] as? [String: Any])
            XCTAssertTrue((record["payload"] as? String ?? "").contains("message \(number)"))
        }
        XCTAssertEqual(journal.statistics.historyReads, 1, "one look when the stream opened; the journal pushed the rest")
        XCTAssertEqual(journal.statistics.readers, readersBefore + 1, "the open stream is one of the journal's readers")
    }

    func testUnfilteredStreamCarriesConnectionsAndFrames() throws {
        let stream = try EventStreamClient(port: controlPort, path: "/v1/events/stream")
        try push(1)
        var types: [String] = []
        while !types.contains("notification") {
            types.append(try json(try stream.next())["type"] as? String ?? "?")
        }
        XCTAssertEqual(types.first, "connectionOpened")
        XCTAssertTrue(types.contains("tlsEstablished"), "\(types)")
        XCTAssertTrue(types.contains("http2Frame"), "\(types)")
    }

    func testAReconnectingReaderResumesAfterTheLastEventID() throws {
        for number in 1...3 { try push(number) }
        let first = try EventStreamClient(port: controlPort, path: "/v1/events/stream?type=notification&after=0")
        let seen = try first.next(3)
        first.close()
        let lastID = try XCTUnwrap(seen.last?.id)
        for number in 4...5 { try push(number) }
        // A browser reconnects to the same address and names the last event it saw.
        let again = try EventStreamClient(
            port: controlPort, path: "/v1/events/stream?type=notification&after=0", headers: ["Last-Event-ID": lastID])
        let resumed = try again.next(2)
        let bodies = try resumed.map { message -> String in
            let record = try XCTUnwrap(try json(message)["notification"] as? [String: Any])
            return try XCTUnwrap(record["payload"] as? String)
        }
        XCTAssertEqual(bodies.map { $0.contains("message 4") }, [true, false])
        XCTAssertEqual(bodies.map { $0.contains("message 5") }, [false, true])
        XCTAssertTrue(resumed.allSatisfy { (UInt64($0.id ?? "") ?? 0) > (UInt64(lastID) ?? .max) })
        // Nothing older is replayed: the next thing on the stream is new.
        try push(6)
        let next = try json(try again.next())
        XCTAssertTrue(((next["notification"] as? [String: Any])?["payload"] as? String ?? "").contains("message 6"))
    }

    /// A delivery on arrival is no journal event: after the notification, the stream says the
    /// delivery model has come that far, and says it once.
    func testTheStreamSaysHowFarTheDeliveryModelHasCome() throws {
        let stream = try EventStreamClient(port: controlPort, path: "/v1/events/stream?type=notification")
        XCTAssertEqual(try stream.status(), 200)
        try push(1)
        let notification = try stream.next(progress: true)
        XCTAssertEqual(try json(notification)["type"] as? String, "notification")
        let sequence = try XCTUnwrap(notification.id.flatMap { Int($0) })
        // The model takes the push in within milliseconds; the stream looks again without a
        // new record to say so.
        let progress = try stream.next(progress: true)
        XCTAssertEqual(progress.event, "delivered")
        XCTAssertNil(progress.id, "not a journal event")
        XCTAssertGreaterThanOrEqual(try json(progress)["through"] as? Int ?? 0, sequence)
        try push(2)
        let next = try stream.next(progress: true)
        XCTAssertEqual(next.event, "message", "progress is told once per notification that waited for it")
        XCTAssertEqual(try stream.next(progress: true).event, "delivered")
    }

    func testAResumeFromAnEarlierRunStartsWithNewEvents() throws {
        // A browser that saw event 1,000,000 of a previous run of the server reconnects.
        let stream = try EventStreamClient(
            port: controlPort, path: "/v1/events/stream?type=notification", headers: ["Last-Event-ID": "1000000"])
        XCTAssertEqual(try stream.status(), 200)
        try push(1)
        let record = try XCTUnwrap(try json(try stream.next())["notification"] as? [String: Any])
        XCTAssertTrue((record["payload"] as? String ?? "").contains("message 1"))
    }

    func testAnOverflowingBufferDropsTheOldestAndSaysHowMany() throws {
        for number in 1...5 { try push(number) }
        let stream = try EventStreamClient(port: controlPort, path: "/v1/events/stream?type=notification&after=0&buffer=2")
        let notice = try stream.next()
        XCTAssertEqual(notice.event, "skipped")
        XCTAssertEqual(try json(notice)["skipped"] as? Int, 3)
        let kept = try stream.next(2).map { message -> String in
            ((try? json(message))?["notification"] as? [String: Any])?["payload"] as? String ?? ""
        }
        XCTAssertTrue(kept[0].contains("message 4"), kept[0])
        XCTAssertTrue(kept[1].contains("message 5"), kept[1])
    }

    func testBadStreamParametersAreRefused() throws {
        let cases: [(String, [String: String], String)] = [
            ("/v1/events/stream?type=nope", [:], "type"),
            ("/v1/events/stream?buffer=0", [:], "buffer"),
            ("/v1/events/stream?after=-1", [:], "after"),
            ("/v1/events/stream?since=3", [:], "since"),
            ("/v1/events/stream", ["Last-Event-ID": "abc"], "Last-Event-ID"),
        ]
        for (path, headers, parameter) in cases {
            let stream = try EventStreamClient(port: controlPort, path: path, headers: headers)
            XCTAssertEqual(try stream.status(), 400, path)
            let body = stream.bufferedBody()
            XCTAssertTrue(body.contains("\"parameter\":\"\(parameter)\""), "\(path): \(body)")
        }
    }
}
