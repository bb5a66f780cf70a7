import MockAPNsCore
import MockAPNsJournal
import XCTest

final class JournalTests: XCTestCase {
    private func notification(token: String = "aa", accepted: Bool = true) -> JournalEventKind {
        .notification(NotificationRecord(
            transport: .http2, deviceToken: token, topic: "com.example.app", payload: Array(#"{"aps":{}}"#.utf8),
            authentication: JournalAuthentication(kind: "certificate"), accepted: accepted,
            reason: accepted ? nil : .badDeviceToken, status: accepted ? 200 : 400
        ))
    }

    func testTwoEventsRecordedTogetherAreConsecutiveAndShareTheirMoment() {
        let journal = Journal(options: JournalOptions(capacity: 10))
        journal.record(.fault(description: "before"), connection: 1)
        journal.record(.legacyFrame(JournalLegacyFrame(command: 2, identifier: 7)), then: notification(token: "bb"), connection: 3)
        let events = journal.events()
        XCTAssertEqual(events.map(\.sequence), [1, 2, 3])
        XCTAssertEqual(events[1].kind, .legacyFrame(JournalLegacyFrame(command: 2, identifier: 7)))
        XCTAssertEqual(events[2].notification?.deviceToken, "bb")
        XCTAssertEqual(events[1].monotonicNanoseconds, events[2].monotonicNanoseconds)
        XCTAssertEqual(events[1].wallTimeMilliseconds, events[2].wallTimeMilliseconds)
        XCTAssertEqual(events[2].connectionID, 3)
    }

    func testFullJournalDropsOldestFirstAndCountsThem() {
        let journal = Journal(options: JournalOptions(capacity: 3))
        for index in 1...5 {
            journal.record(.fault(description: "fault \(index)"), connection: 1)
        }
        let kept = journal.events().map(\.sequence)
        XCTAssertEqual(kept, [3, 4, 5])
        let statistics = journal.statistics
        XCTAssertEqual([statistics.count, statistics.capacity], [3, 3])
        XCTAssertEqual([statistics.dropped, statistics.lastSequence], [2, 5])
        XCTAssertEqual(journal.events(matching: JournalEventFilter(afterSequence: 3)).map(\.sequence), [4, 5])
        XCTAssertEqual(journal.events(limit: 1).map(\.sequence), [3])
    }

    func testClearKeepsSequenceNumbersRising() {
        let journal = Journal()
        journal.record(notification())
        journal.clear()
        journal.record(notification())
        XCTAssertEqual(journal.notifications().map(\.sequence), [2])
        XCTAssertEqual(journal.statistics.dropped, 0)
    }

    func testNotificationRecordsAreStampedAndFiltered() {
        let journal = Journal(clock: ServerClock(fixedAt: 1_767_225_600_000))
        journal.record(notification(token: "AA"), connection: 7, stream: 3)
        journal.record(notification(token: "bb", accepted: false), connection: 8, stream: 1)
        let first = journal.notifications(matching: NotificationFilter(deviceToken: "aa"))
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(first.first?.connectionID, 7)
        XCTAssertEqual(first.first?.streamID, 3)
        XCTAssertEqual(first.first?.wallTimeMilliseconds, 1_767_225_600_000)
        XCTAssertEqual(journal.notifications(matching: NotificationFilter(status: 400)).map(\.deviceToken), ["bb"])
        XCTAssertEqual(journal.notifications(matching: NotificationFilter(reason: .badDeviceToken)).count, 1)
        XCTAssertEqual(journal.notifications(matching: NotificationFilter(connectionID: 9)).count, 0)
    }

    func testWaitReturnsAsSoonAsTheLastWantedNotificationArrives() async throws {
        let journal = Journal()
        journal.record(notification(token: "aa"))
        let started = ContinuousClock.now
        async let waited = journal.waitForNotifications(
            count: 3, matching: NotificationFilter(deviceToken: "aa"), timeout: .seconds(30))
        await Self.parked(journal)
        journal.record(notification(token: "bb"))
        journal.record(notification(token: "aa"))
        journal.record(notification(token: "aa"))
        let records = try await waited
        XCTAssertEqual(records.map(\.sequence), [1, 3, 4])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "woken by the append, not the timeout")
    }

    /// A waiter's predicate runs outside the journal's lock, so it may read the journal back
    /// (as the control API's protocol filter does), both when the wait starts and when an
    /// append wakes it. Under the lock this was a recursive-lock trap.
    func testWaitPredicateMayReadTheJournal() async {
        let journal = Journal()
        journal.record(.connectionOpened(transport: .http2, peer: "127.0.0.1:1"), connection: 1)
        journal.record(.connectionOpened(transport: .legacy, peer: "127.0.0.1:2"), connection: 2)
        let before = await journal.waitForEvents(count: 1, timeout: .seconds(5)) { event in
            event.connectionID.flatMap(journal.transport(ofConnection:)) == .legacy
        }
        XCTAssertEqual(before.map(\.connectionID), [2])

        let after = journal.statistics.lastSequence
        async let waited = journal.waitForEvents(count: 1, after: after, timeout: .seconds(30)) { event in
            _ = journal.events(matching: JournalEventFilter(connectionID: 1))
            return event.connectionID.flatMap(journal.transport(ofConnection:)) == .legacy
        }
        await Self.parked(journal)
        journal.record(.fault(description: "on http2"), connection: 1)
        journal.record(.fault(description: "on legacy"), connection: 2)
        let woken = await waited
        XCTAssertEqual(woken.map(\.sequence), [after + 2])
    }

    func testCancelledWaitThrowsWhatItFound() async {
        let journal = Journal()
        journal.record(notification())
        let task = Task { () async throws(NotificationWaitTimeout) -> [NotificationRecord] in
            try await journal.waitForNotifications(count: 2, timeout: .seconds(60))
        }
        await Self.parked(journal)
        task.cancel()
        do {
            let records = try await task.value
            XCTFail("a cancelled wait for 2 returned \(records.count)")
        } catch let failure as NotificationWaitTimeout {
            XCTAssertEqual(failure.found.count, 1)
        } catch {
            XCTFail("\(error)")
        }
    }

    /// A wait is fed from the journal's one subscription point: a reader subscribed while it
    /// waits (woken by the batch that brings its event), and gone once it ends.
    func testAWaitIsAReaderOnlyWhileItWaits() async throws {
        let journal = Journal()
        XCTAssertEqual(journal.statistics.readers, 0)
        async let waited = journal.waitForNotifications(count: 1, timeout: .seconds(30))
        await Self.parked(journal)
        XCTAssertEqual(journal.statistics.readers, 1)
        journal.record(notification())
        let records = try await waited
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(journal.statistics.readers, 0)
    }

    func testWaitThatTimesOutThrowsWhatItFound() async {
        let journal = Journal()
        journal.record(notification())
        do {
            let records = try await journal.waitForNotifications(count: 2, timeout: .milliseconds(100))
            XCTFail("a wait for 2 of 1 returned \(records.count)")
        } catch {
            XCTAssertEqual(error.found.count, 1)
            XCTAssertEqual(error.count, 2)
            XCTAssertEqual(error.nearMisses, [], "every notification matched: none is a near miss")
        }
    }

    func testEventJSONIsOneObjectWithEscapedText() {
        let journal = Journal(clock: ServerClock(fixedAt: 5))
        journal.record(.diagnosis(code: .providerTokenNote, message: "iat sent as a \"string\"\n"), connection: 2)
        let json = JournalJSON.encode(journal.events()[0])
        XCTAssertTrue(json.hasPrefix(#"{"seq":1,"time":5,"mono":"#), json)
        XCTAssertTrue(json.hasSuffix(#","connection":2,"type":"diagnosis","code":"providerToken.note","message":"iat sent as a \"string\"\n"}"#), json)
    }

    func testLargePayloadsAreKeptBounded() {
        let record = NotificationRecord(
            transport: .http2, deviceToken: "aa", payload: [UInt8](repeating: 0x61, count: 100_000),
            authentication: JournalAuthentication(kind: "none"), accepted: false, reason: .payloadTooLarge, status: 413)
        XCTAssertEqual(record.payload.count, NotificationRecord.payloadLimit)
        XCTAssertEqual(record.payloadLength, 100_000)
        XCTAssertTrue(JournalJSON.encode(record).contains(#""payloadTruncated":true"#))
    }

    func testAReaderIsHandedOnlyTheKindsSomeReaderWants() {
        final class FaultsOnly: JournalReader, @unchecked Sendable {
            let wantedKinds = JournalEventKind.bits(named: ["fault"])
            var received: [String] = []
            func read(_ batch: [JournalEvent]) { received += batch.map(\.kind.name) }
        }
        let journal = Journal()
        let sink = FaultsOnly()
        journal.subscribe(sink)
        journal.record(.diagnosis(code: .http2StreamError, message: "m"))
        journal.record(.fault(description: "f"))
        journal.record(.feedbackTuple(deviceToken: "ab", timestampMilliseconds: 0))
        XCTAssertEqual(sink.received, ["fault"])
        XCTAssertEqual(journal.statistics.lastSequence, 3, "every event is still journaled")
    }

    /// Returns once a wait has begun in `journal` (its reader is subscribed); fails the test after 10 s.
    private static func parked(_ journal: Journal, file: StaticString = #filePath, line: UInt = #line) async {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while journal.waitingReaders == 0 {
            guard clock.now < deadline else { return XCTFail("no wait began within 10 s", file: file, line: line) }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    func testKindBitsFollowTheKindNamesAndCoverEveryKind() {
        XCTAssertEqual(JournalEventKind.bits(named: JournalEventKind.Name.texts), JournalEventKind.allBits)
        XCTAssertEqual(JournalEventKind.Name.texts.first, "connectionOpened", "a name is its case's name")
        for name in JournalEventKind.Name.allCases {
            XCTAssertEqual(JournalEventKind.Name(text: name.text), name)
        }
        XCTAssertEqual(JournalEventKind.bits(named: ["fault", "nonsense"]), JournalEventKind.fault(description: "").bit)
    }
}
