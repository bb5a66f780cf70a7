import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsDelivery

/// A notification's delivery log, found by any of its ids in the journal, and told in the
/// words of Apple's Push Notifications Console.
final class DeliveryTimelineTests: XCTestCase {
    private let journal = Journal(clock: ServerClock(fixedAt: 1_767_225_600_000))

    private func record(token: String, apnsID: String?, uniqueID: String?, accepted: Bool = true, transport: Transport = .http2) -> UInt64 {
        let answer = accepted
            ? SentAnswer(status: transport == .http2 ? 200 : nil, apnsID: apnsID.map(MessageID.text), uniqueID: uniqueID.map(MessageID.text), accepted: true)
            : SentAnswer(status: 400, reason: .badDeviceToken, apnsID: apnsID.map(MessageID.text), accepted: false)
        journal.record(.notification(NotificationRecord(
            transport: transport, deviceToken: token, topic: "com.example.app", payload: Array("{}".utf8),
            authentication: JournalAuthentication(kind: "none"), answer: answer)))
        return journal.statistics.lastSequence
    }

    private var events: [JournalEvent] {
        journal.events(matching: JournalEventFilter(kinds: ["notification", "delivery"]))
    }

    func testALogIsFoundByUniqueIDApnsIDOrSequenceAndToldInTheConsolesWords() throws {
        var model = DeliveryModel()
        let offlineAt = journal.statistics.lastSequence
        journal.record(.delivery(.device("a1", online: false, at: 1_767_225_600_000)))
        _ = model.setOnline("a1", false, at: 1_767_225_600_000)
        var sequences: [UInt64] = []
        for index in 1...2 {
            let sequence = record(token: "A1", apnsID: "5E0D3A0B-0000-0000-0000-00000000000\(index)", uniqueID: "unique-\(index)")
            sequences.append(sequence)
            let notification = try XCTUnwrap(events.last?.notification.flatMap(DeliveryNotification.init))
            for change in model.receive(notification) { journal.record(.delivery(change.record)) }
        }
        for change in model.setOnline("a1", true, at: 1_767_225_601_000) { journal.record(.delivery(change.record)) }
        XCTAssertGreaterThan(sequences[0], offlineAt)

        let first = DeliveryTimeline.find("unique-1", in: events)
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(first.first?.entries.map(\.step), ["accepted", "stored", "superseded"])
        XCTAssertEqual(first.first?.entries.map(\.consoleText), [
            "Received by APNs", "Stored - Device Offline", "Discarded - Replaced in Storage by a Newer Notification",
        ])
        XCTAssertEqual(first.first?.entries.last?.record?.replacedBy, sequences[1])
        XCTAssertEqual(first.first?.state, "superseded")
        XCTAssertFalse(first.first?.isWaiting ?? true)

        // apns-id in any letter case, and the journal sequence, name the same notification.
        let second = DeliveryTimeline.find("5e0d3a0b-0000-0000-0000-000000000002", in: events)
        XCTAssertEqual(second.first?.entries.map(\.consoleText), [
            "Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)",
        ])
        XCTAssertEqual(second.first?.entries.last?.atMilliseconds, 1_767_225_601_000)
        XCTAssertEqual(DeliveryTimeline.find(String(sequences[1]), in: events), second)
        XCTAssertEqual(second.first?.state, "delivered")
        XCTAssertTrue(DeliveryTimeline.find("nobody", in: events).isEmpty)
    }

    func testARefusedNotificationHasNoDeliveryAndALegacyOneIsFoundByItsSequence() {
        _ = record(token: "b1", apnsID: "REFUSED", uniqueID: nil, accepted: false)
        let legacy = record(token: "b2", apnsID: nil, uniqueID: nil, transport: .legacy)
        let refused = DeliveryTimeline.find("refused", in: events)
        XCTAssertEqual(refused.first?.entries, [])
        XCTAssertEqual(refused.first?.state, "refused")
        let found = DeliveryTimeline.find(String(legacy), in: events)
        XCTAssertEqual(found.first?.notification.transport, .legacy)
        XCTAssertEqual(found.first?.state, "accepted")
    }

    func testAReusedApnsIDListsEveryNotificationThatCarriedIt() {
        _ = record(token: "c1", apnsID: "SAME", uniqueID: "u-1")
        _ = record(token: "c2", apnsID: "SAME", uniqueID: "u-2")
        XCTAssertEqual(DeliveryTimeline.find("SAME", in: events).map(\.notification.deviceToken), ["c1", "c2"])
    }

    func testTheJSONFormsSayWhatTheDashboardShows() throws {
        var model = DeliveryModel(options: DeliveryOptions(batchDelayMilliseconds: 500))
        _ = record(token: "d1", apnsID: "ID", uniqueID: "u")
        var notification = try XCTUnwrap(events.last?.notification.flatMap(DeliveryNotification.init))
        notification.priority = 5
        for change in model.receive(notification) { journal.record(.delivery(change.record)) }
        var writer = JSONWriter()
        DeliveryJSON.write(try XCTUnwrap(DeliveryTimeline.find("u", in: events).first), into: &writer)
        let log = writer.text
        XCTAssertTrue(log.contains(#""state":"stored","console":"Stored - Power Considerations","timeline":[{"seq":"#), log)
        XCTAssertTrue(log.contains(#""step":"stored","cause":"powerConsiderations","console":"Stored - Power Considerations","at":1767225600000,"until":1767225600500}"#), log)
        var device = JSONWriter()
        DeliveryJSON.write(model.state(of: "d1"), into: &device)
        XCTAssertTrue(device.text.hasPrefix(#"{"deviceToken":"d1","online":true,"stored":[],"held":[{"notification":"#), device.text)
        XCTAssertTrue(device.text.hasSuffix(#""batchReleaseAt":1767225600500}"#), device.text)
    }

    /// A delivery on arrival is not recorded; the log derives it, but only for a notification
    /// the model has taken in (up to `derivedThrough`), that it did not leave out, and that no
    /// recorded step names.
    func testADeliveryOnArrivalIsDerivedOnlyForWhatTheModelHasTakenIn() throws {
        var model = DeliveryModel()
        let online = record(token: "E1", apnsID: "ON-ARRIVAL", uniqueID: "u-e1")
        let notification = try XCTUnwrap(events.last?.notification.flatMap(DeliveryNotification.init))
        let changes = model.receive(notification)
        XCTAssertEqual(changes.map(\.record.step), [.delivered])
        XCTAssertEqual(changes.map(\.isOnArrival), [true], "the one step that is not recorded")
        XCTAssertTrue(model.deliversOnArrival(priority: 10, pushType: "alert"))

        let derived = try XCTUnwrap(DeliveryTimeline.find("u-e1", in: events, derivedThrough: online).first)
        XCTAssertEqual(derived.entries.map(\.consoleText), ["Received by APNs", "Delivered to Device"])
        XCTAssertEqual(derived.entries.map(\.isDerived), [false, true])
        XCTAssertEqual(derived.entries.last?.sequence, online, "the line comes from the notification's own event")
        XCTAssertEqual(derived.entries.last?.record?.deviceToken, "e1")
        XCTAssertEqual(derived.state, "delivered")
        var writer = JSONWriter()
        DeliveryJSON.write(derived, into: &writer)
        XCTAssertTrue(writer.text.contains(#""step":"delivered","console":"Delivered to Device","at":1767225600000,"derived":true}"#), writer.text)

        // Not yet taken in, or left out by an overflowing feed: only the acceptance is known.
        XCTAssertEqual(DeliveryTimeline.find("u-e1", in: events, derivedThrough: online - 1).first?.state, "accepted")
        XCTAssertEqual(DeliveryTimeline.find("u-e1", in: events, derivedThrough: online, leftOut: [online...online]).first?.state, "accepted")
        // A refused notification never enters delivery, whatever the model's progress.
        let refused = record(token: "e2", apnsID: "REFUSED-E2", uniqueID: nil, accepted: false)
        XCTAssertEqual(DeliveryTimeline.find("REFUSED-E2", in: events, derivedThrough: refused).first?.entries, [])

        // A notification with a recorded step keeps it: nothing is derived beside it.
        journal.record(.delivery(.device("e3", online: false, at: 1_767_225_600_000)))
        _ = model.setOnline("e3", false, at: 1_767_225_600_000)
        XCTAssertFalse(model.deliversOnArrival(priority: 10, pushType: "alert"), "a device is offline")
        let stored = record(token: "e3", apnsID: "STORED-E3", uniqueID: "u-e3")
        let offline = try XCTUnwrap(events.last?.notification.flatMap(DeliveryNotification.init))
        for change in model.receive(offline) {
            XCTAssertFalse(change.isOnArrival)
            journal.record(.delivery(change.record))
        }
        let kept = try XCTUnwrap(DeliveryTimeline.find("u-e3", in: events, derivedThrough: stored).first)
        XCTAssertEqual(kept.entries.map(\.step), ["accepted", "stored"])
        XCTAssertEqual(kept.entries.map(\.isDerived), [false, false])
    }

    /// A batch delay holds power-aware pushes back, so those are never passed by unexamined.
    func testAPowerAwarePushUnderABatchDelayIsNotDeliveredOnArrival() {
        let model = DeliveryModel(options: DeliveryOptions(batchDelayMilliseconds: 500))
        XCTAssertFalse(model.deliversOnArrival(priority: 5, pushType: "alert"))
        XCTAssertFalse(model.deliversOnArrival(priority: 10, pushType: "background"))
        XCTAssertTrue(model.deliversOnArrival(priority: 10, pushType: "alert"))
        XCTAssertTrue(DeliveryModel().deliversOnArrival(priority: 5, pushType: "background"), "no batch delay: nothing is held")
    }
}
