import MockAPNsCore
@testable import MockAPNsJournal
import MockAPNsWire
import XCTest

/// An accepted legacy notification's compact record says everything the boxed record of the
/// same notification says, packs and reads back as it does, and becomes a box of its own when
/// a copy of it is changed.
final class CompactLegacyRecordTests: XCTestCase {
    private let authentication = AuthenticationResult.certificate(
        topics: ["com.example.app", "com.example.app.voip"], defaultTopic: "com.example.app", environments: [.sandbox]
    )
    private let token = String(repeating: "a1b2c3d4", count: 8)
    private let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)

    private func context(topic: String? = "com.example.app") -> LegacyRecordContext {
        LegacyRecordContext(topic: topic, pushType: "alert", authentication: authentication, environment: .sandbox)
    }

    private func compact(
        identifier: UInt32? = 77, expiry: UInt32? = 1_700_000_000, priority: Int? = 5, command: UInt8 = 2,
        payloadIsJSON: Bool? = nil
    ) throws -> NotificationRecord {
        var arena = ByteArena()
        let shared = payload.withUnsafeBytes { arena.copy($0) }
        return try XCTUnwrap(LegacyRecordWriter().record(
            deviceToken: token, payload: shared, context: context(), command: command, identifier: identifier,
            expiry: expiry, priority: priority, payloadIsJSON: payloadIsJSON, handOvers: 0
        ))
    }

    private func boxed(
        identifier: UInt32? = 77, expiry: UInt32? = 1_700_000_000, priority: Int? = 5, command: UInt8 = 2,
        payloadIsJSON: Bool? = nil
    ) -> NotificationRecord {
        NotificationRecord(
            transport: .legacy, deviceToken: token, topic: "com.example.app", pushType: "alert", priority: priority,
            expiration: expiry.map(Int64.init), legacyIdentifier: identifier, legacyCommand: command, payload: payload,
            payloadIsJSON: payloadIsJSON, authentication: JournalAuthentication(authentication),
            answer: SentAnswer(accepted: true), environment: .sandbox
        )
    }

    private func event(_ record: NotificationRecord) -> JournalEvent {
        JournalEvent(sequence: 1, wallTimeMilliseconds: 2, monotonicNanoseconds: 3, connectionID: 4, streamID: nil, kind: .notification(record))
    }

    func testACompactRecordSaysWhatTheBoxedRecordOfTheSameNotificationSays() throws {
        let rows: [(name: String, identifier: UInt32?, expiry: UInt32?, priority: Int?, command: UInt8, json: Bool?)] = [
            ("command 2, every item", 77, 1_700_000_000, 5, 2, nil),
            ("command 2, no optional item", nil, nil, nil, 2, true),
            ("command 1", 0, 0, nil, 1, false),
            ("command 0", nil, nil, nil, 0, nil),
            ("priority 10, largest identifier", UInt32.max, UInt32.max, 10, 2, nil),
        ]
        for row in rows {
            let compact = try compact(
                identifier: row.identifier, expiry: row.expiry, priority: row.priority, command: row.command, payloadIsJSON: row.json
            )
            let boxed = boxed(
                identifier: row.identifier, expiry: row.expiry, priority: row.priority, command: row.command, payloadIsJSON: row.json
            )
            XCTAssertTrue(compact.isCompact, row.name)
            XCTAssertFalse(boxed.isCompact, row.name)
            XCTAssertEqual(compact, boxed, row.name)
            XCTAssertEqual(compact.transport, .legacy, row.name)
            XCTAssertEqual(compact.deviceToken, token, row.name)
            XCTAssertEqual(compact.topic, "com.example.app", row.name)
            XCTAssertEqual(compact.pushType, "alert", row.name)
            XCTAssertEqual(compact.legacyIdentifier, row.identifier, row.name)
            XCTAssertEqual(compact.expiration, row.expiry.map(Int64.init), row.name)
            XCTAssertEqual(compact.priority, row.priority, row.name)
            XCTAssertEqual(compact.legacyCommand, row.command, row.name)
            XCTAssertEqual(compact.payload, payload, row.name)
            XCTAssertEqual(compact.payloadLength, payload.count, row.name)
            XCTAssertEqual(compact.payloadIsJSON, row.json, row.name)
            XCTAssertEqual(compact.authentication, JournalAuthentication(authentication), row.name)
            XCTAssertTrue(compact.accepted, row.name)
            XCTAssertNil(compact.status, row.name)
            XCTAssertNil(compact.reason, row.name)
            XCTAssertNil(compact.legacyStatus, row.name)
            XCTAssertNil(compact.rule, row.name)
            XCTAssertFalse(compact.dropped, row.name)
            XCTAssertEqual(compact.environment, .sandbox, row.name)
            XCTAssertEqual(event(compact).json, event(boxed).json, row.name)
        }
    }

    func testACompactRecordPacksToTheBytesOfTheBoxedOne() throws {
        let places: [(connection: UInt64?, stream: Int32?)] = [(4, nil), (nil, nil), (4, 1), (nil, 3)]
        for place in places {
            for json in [nil, true, false] as [Bool?] {
                let compact = (try compact(payloadIsJSON: json)).packed(connection: place.connection, stream: place.stream)
                let boxed = boxed(payloadIsJSON: json).packed(connection: place.connection, stream: place.stream)
                XCTAssertEqual(compact, boxed, "connection \(String(describing: place.connection)), stream \(String(describing: place.stream))")
                XCTAssertGreaterThan(compact.count, payload.count)
            }
        }
        let none = (try compact(identifier: nil, expiry: nil, priority: nil, command: 0)).packed(connection: 1, stream: nil)
        XCTAssertEqual(none, boxed(identifier: nil, expiry: nil, priority: nil, command: 0).packed(connection: 1, stream: nil))
    }

    func testAJournalReadsACompactRecordBackAsTheBoxedOne() throws {
        let journal = Journal(options: JournalOptions())
        journal.record(.notification(try compact()), connection: 4)
        journal.record(.notification(boxed()), connection: 4)
        let read = journal.notifications()
        XCTAssertEqual(read.count, 2)
        XCTAssertEqual(read.first?.connectionID, 4)
        XCTAssertEqual(read.first?.sequence, 1)
        var expected = try XCTUnwrap(read.last)
        expected.sequence = 1
        expected.wallTimeMilliseconds = read.first?.wallTimeMilliseconds ?? 0
        XCTAssertEqual(read.first, expected, "packed and read back alike")
        XCTAssertEqual(read.first?.payload, payload)
        XCTAssertEqual(read.first?.legacyIdentifier, 77)
    }

    func testAnEventStampsACompactRecordWithItsSequenceAndConnection() throws {
        let event = JournalEvent(
            sequence: 12, wallTimeMilliseconds: 5_000, monotonicNanoseconds: 1, connectionID: 3, streamID: nil,
            kind: .notification(try compact())
        )
        let record = try XCTUnwrap(event.notification)
        XCTAssertEqual(record.sequence, 12)
        XCTAssertEqual(record.wallTimeMilliseconds, 5_000)
        XCTAssertEqual(record.connectionID, 3)
        XCTAssertEqual(record.deviceToken, token)
        XCTAssertEqual(record.payload, payload)
    }

    func testChangingACopyOfACompactRecordBoxesTheCopyAlone() throws {
        let original = try compact()
        var changed = original
        changed.accepted = false
        changed.topic = "com.example.other"
        XCTAssertTrue(original.isCompact)
        XCTAssertFalse(changed.isCompact)
        XCTAssertTrue(original.accepted)
        XCTAssertEqual(original.topic, "com.example.app")
        XCTAssertFalse(changed.accepted)
        XCTAssertEqual(changed.topic, "com.example.other")
        XCTAssertEqual(changed.payload, payload, "the rest carried over")
        XCTAssertEqual(changed.legacyIdentifier, 77)
    }

    func testWhatACompactRecordCannotHoldIsLeftToABox() {
        var arena = ByteArena()
        let inArena = payload.withUnsafeBytes { arena.copy($0) }
        let rows: [(name: String, token: String, payload: SharedBytes)] = [
            ("a payload outside the arena (longer than it copies)", token, SharedBytes([UInt8](repeating: 0x20, count: 20_000))),
            ("a payload the arena did not copy", token, SharedBytes(payload)),
            ("a token longer than 32 bytes", String(repeating: "ab", count: 33), inArena),
        ]
        for row in rows {
            XCTAssertNil(LegacyRecordWriter().record(
                deviceToken: row.token, payload: row.payload, context: context(), command: 2, identifier: 1, expiry: nil,
                priority: nil, payloadIsJSON: nil, handOvers: 0
            ), row.name)
        }
        let shortest = LegacyRecordWriter().record(
            deviceToken: "ab", payload: inArena, context: context(), command: 2, identifier: 1, expiry: nil, priority: nil,
            payloadIsJSON: nil, handOvers: 0
        )
        XCTAssertEqual(shortest?.deviceToken, "ab", "a short token fits")
    }

    private var arena = ByteArena()

    private func write(_ writer: LegacyRecordWriter, identifier: UInt32, context: LegacyRecordContext, handOvers: UInt64) throws -> NotificationRecord {
        let shared = payload.withUnsafeBytes { arena.copy($0) }
        return try XCTUnwrap(writer.record(
            deviceToken: token, payload: shared, context: context, command: 2, identifier: identifier,
            expiry: nil, priority: nil, payloadIsJSON: nil, handOvers: handOvers
        ))
    }

    func testRecordsHandedOverKeepWhatTheySaidWhileTheWriterGoesOn() throws {
        let writer = LegacyRecordWriter()
        let shared = context()
        // Records of three hand-overs, a new context, and more than a block holds.
        var written: [(identifier: UInt32, record: NotificationRecord)] = []
        var handOvers: UInt64 = 0
        for identifier in UInt32(1)...600 {
            if identifier % 100 == 0 { handOvers += 1 }
            let context = identifier > 500 ? self.context(topic: "com.example.app.voip") : shared
            written.append((identifier, try write(writer, identifier: identifier, context: context, handOvers: handOvers)))
        }
        for (identifier, record) in written {
            XCTAssertEqual(record.legacyIdentifier, identifier)
            XCTAssertEqual(record.deviceToken, token)
            XCTAssertEqual(record.topic, identifier > 500 ? "com.example.app.voip" : "com.example.app", "record \(identifier)")
            XCTAssertEqual(record.payload, payload)
        }
    }

    func testABlockIsUsedAgainOnceNothingNamesItsRecords() throws {
        let writer = LegacyRecordWriter()
        let shared = context()
        // The first hand-over's 100 records fill blocks of 16 and 32 entries, and one of 64
        // takes the rest; the next fills that one again and grows to one of 128.
        for identifier in UInt32(0)..<100 {
            _ = try write(writer, identifier: identifier, context: shared, handOvers: 0)
        }
        XCTAssertEqual(writer.blocksAllocated, 3)
        // Each later hand-over's records are read and dropped before the next: from the
        // second on, a block of 128 is emptied and written again, and nothing more is made.
        for handOver in UInt64(1)..<50 {
            for identifier in UInt32(0)..<100 {
                let record = try write(writer, identifier: identifier, context: shared, handOvers: handOver)
                XCTAssertEqual(record.legacyIdentifier, identifier)
            }
        }
        XCTAssertEqual(writer.blocksAllocated, 4)
        // A block still held is not used again: its records read the same afterwards.
        let held = try write(writer, identifier: 7, context: shared, handOvers: 50)
        for identifier in UInt32(0)..<600 {
            _ = try write(writer, identifier: identifier, context: shared, handOvers: 51 + UInt64(identifier / 100))
        }
        XCTAssertEqual(held.legacyIdentifier, 7)
        XCTAssertEqual(held.deviceToken, token)
        XCTAssertEqual(writer.blocksAllocated, 5, "one more block while the first is held, used again and again")
    }

    func testAContextIsSharedOnlyByReadsWithTheSameFacts() {
        let shared = context()
        XCTAssertTrue(shared.matches(topic: "com.example.app", pushType: "alert", authentication: authentication, environment: .sandbox))
        XCTAssertFalse(shared.matches(topic: "com.example.app.voip", pushType: "alert", authentication: authentication, environment: .sandbox))
        XCTAssertFalse(shared.matches(topic: "com.example.app", pushType: "voip", authentication: authentication, environment: .sandbox))
        XCTAssertFalse(shared.matches(topic: "com.example.app", pushType: "alert", authentication: .notRequired, environment: .sandbox))
        XCTAssertFalse(shared.matches(topic: "com.example.app", pushType: "alert", authentication: authentication, environment: .production))
    }
}
