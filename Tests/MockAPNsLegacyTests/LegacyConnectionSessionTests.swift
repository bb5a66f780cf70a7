import XCTest
@testable import MockAPNsCore
@testable import MockAPNsLegacy

/// One connection's rules: the first failure is answered once, everything after it is dropped.
final class LegacyConnectionSessionTests: XCTestCase {
    func acceptAll(_ request: PushRequest, _ payloadJSON: PayloadJSON?) -> Reason? { nil }

    func failures(_ events: [LegacySessionEvent]) -> [(LegacyFailureCause, LegacyConnectionAction)] {
        events.compactMap { if case .failed(let cause, let action) = $0 { return (cause, action) } else { return nil } }
    }

    func dropped(_ events: [LegacySessionEvent]) -> [UInt32?] {
        events.compactMap { if case .dropped(let frame) = $0 { return frame.identifier } else { return nil } }
    }

    func accepted(_ events: [LegacySessionEvent]) -> [UInt32?] {
        events.compactMap { if case .accepted(let notification) = $0 { return notification.identifier } else { return nil } }
    }

    func testOneBadTokenAmongAThousand() {
        var stream: [UInt8] = []
        for identifier in 1...1000 as ClosedRange<UInt32> {
            let token = identifier == 500 ? Array(LegacyFixtures.token.prefix(31)) : LegacyFixtures.token
            stream += LegacyFixtures.frame(identifier: identifier, token: token)
        }
        var session = LegacyConnectionSession()
        var events: [LegacySessionEvent] = []
        var actions: [LegacyConnectionAction] = []
        // Delivered in uneven reads, as TCP would.
        var random = SeededRandom(seed: 11)
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + Int.random(in: 1...4096, using: &random))
            let output = session.receive(Array(stream[start..<end]), decide: acceptAll)
            events += output.events
            if let action = output.action { actions.append(action) }
            start = end
        }

        XCTAssertEqual(actions, [.sendErrorAndClose(LegacyErrorResponse(status: .invalidTokenSize, identifier: 500))])
        XCTAssertEqual(actions.first?.bytes, legacyBytes("08 05 000001f4"))
        XCTAssertEqual(accepted(events), (1...499).map { Optional(UInt32($0)) })
        XCTAssertEqual(dropped(events), (501...1000).map { Optional(UInt32($0)) })
        XCTAssertEqual(failures(events).count, 1)
        XCTAssertEqual(session.acceptedCount, 499)
        XCTAssertEqual(session.droppedCount, 500)
        XCTAssertEqual(session.lastAcceptedIdentifier, 499)
        XCTAssertTrue(session.isClosing)
    }

    func testDecisionCoreRejectionUsesTheReasonsLegacyStatus() throws {
        let unregistered = LegacyFixtures.tokenHex
        var seen: [PushRequest] = []
        var session = LegacyConnectionSession()
        let output = session.receive(LegacyFixtures.enhanced(identifier: 41) + LegacyFixtures.enhanced(identifier: 42)) { request, _ in
            seen.append(request)
            return request.legacyIdentifier == 42 && request.deviceToken == unregistered ? .unregistered : nil
        }
        XCTAssertEqual(output.action?.bytes, legacyBytes("08 08 0000002a"))
        XCTAssertEqual(seen.map(\.legacyIdentifier), [41, 42])
        XCTAssertEqual(seen.first?.transport, .legacy)
        let (cause, _) = try XCTUnwrap(failures(output.events).first)
        guard case .decision(.unregistered, let notification) = cause else { return XCTFail("\(cause)") }
        XCTAssertEqual(notification.identifier, 42)
    }

    func testStatusesForEveryFrameProblem() {
        let cases: [(String, [UInt8], String)] = [
            ("missing token", LegacyFixtures.enhanced(identifier: 1, token: []), "08 02 00000001"),
            ("missing payload", LegacyFixtures.enhanced(identifier: 2, payload: []), "08 04 00000002"),
            ("token size", LegacyFixtures.enhanced(identifier: 3, token: [1, 2, 3]), "08 05 00000003"),
            ("payload size", LegacyFixtures.frame(identifier: 4, payload: [UInt8](repeating: 0x20, count: 2049)), "08 07 00000004"),
            ("priority", LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (2, LegacyFixtures.payload), (3, LegacyFixtures.bigEndian(5)), (5, [7])]), "08 ff 00000005"),
            ("unknown item", LegacyFixtures.rawFrame([(3, LegacyFixtures.bigEndian(6)), (9, [])]), "08 ff 00000006"),
            ("empty frame", legacyBytes("02 00000000"), "08 ff 00000000"),
        ]
        for (name, frame, packet) in cases {
            var session = LegacyConnectionSession()
            XCTAssertEqual(session.receive(frame, decide: acceptAll).action?.bytes, legacyBytes(packet), name)
        }
    }

    func testMissingTokenCanReportIdentifierZero() {
        var session = LegacyConnectionSession(options: LegacySessionOptions(reportsZeroIdentifierForMissingToken: true))
        let frame = LegacyFixtures.rawFrame([(1, []), (2, LegacyFixtures.payload), (3, LegacyFixtures.bigEndian(77))])
        XCTAssertEqual(session.receive(frame, decide: acceptAll).action?.bytes, legacyBytes("08 02 00000000"))
        // Only status 2 is affected.
        var other = LegacyConnectionSession(options: LegacySessionOptions(reportsZeroIdentifierForMissingToken: true))
        XCTAssertEqual(other.receive(LegacyFixtures.enhanced(identifier: 77, payload: []), decide: acceptAll).action?.bytes,
                       legacyBytes("08 04 0000004d"))
    }

    func testParseErrorsFollowThePolicy() {
        let unparseable: [[UInt8]] = [
            [0x07],                                             // unknown command
            legacyBytes("02 ffffffff"),                         // impossible frame length
            legacyBytes("02 0000000b  03 0004 00000009  01 0020 dead"), // token item runs past the frame
        ]
        for bytes in unparseable {
            var silent = LegacyConnectionSession()
            XCTAssertEqual(silent.receive(bytes, decide: acceptAll).action, .closeSilently, "default is TN2265's silent close")

            var loud = LegacyConnectionSession(options: LegacySessionOptions(parseErrorPolicy: .statusPacket))
            XCTAssertEqual(loud.receive(bytes, decide: acceptAll).action?.bytes.prefix(2), [8, 128])
        }
        var loud = LegacyConnectionSession(options: LegacySessionOptions(parseErrorPolicy: .statusPacket))
        XCTAssertEqual(loud.receive(unparseable[2], decide: acceptAll).action?.bytes, legacyBytes("08 80 00000009"),
                       "the identifier read before the broken item is reported")
    }

    func testCommand0ErrorsAlwaysCloseWithoutAPacket() {
        let badToken = LegacyNotification(command: .simple, token: [1, 2], payload: LegacyFixtures.payload).encoded()
        var session = LegacyConnectionSession(options: LegacySessionOptions(parseErrorPolicy: .statusPacket))
        let output = session.receive(badToken + LegacyFixtures.enhanced(identifier: 3), decide: acceptAll)
        XCTAssertEqual(output.action, .closeSilently)
        XCTAssertEqual(output.action?.bytes, [])
        XCTAssertEqual(dropped(output.events), [3])

        var rejected = LegacyConnectionSession()
        let good = LegacyNotification(command: .simple, token: LegacyFixtures.token, payload: LegacyFixtures.payload).encoded()
        XCTAssertEqual(rejected.receive(good) { _, _ in .badDeviceToken }.action, .closeSilently)
    }

    func testShutdownCarriesTheLastAcceptedIdentifier() throws {
        var session = LegacyConnectionSession()
        var stream: [UInt8] = []
        for identifier in [10, 20, 30] as [UInt32] { stream += LegacyFixtures.frame(identifier: identifier) }
        // Command 0 has no identifier and leaves the last one unchanged.
        stream += LegacyNotification(command: .simple, token: LegacyFixtures.token, payload: LegacyFixtures.payload).encoded()
        XCTAssertNil(session.receive(stream, decide: acceptAll).action)

        let response = try XCTUnwrap(session.shutdown())
        XCTAssertEqual(response.bytes, legacyBytes("08 0a 0000001e"))
        XCTAssertNil(session.shutdown(), "answered once")
        let after = session.receive(LegacyFixtures.frame(identifier: 40), decide: acceptAll)
        XCTAssertNil(after.action)
        XCTAssertEqual(dropped(after.events), [40])
    }

    func testShutdownBeforeAnythingWasAcceptedReportsZero() {
        var session = LegacyConnectionSession()
        XCTAssertEqual(session.shutdown()?.bytes, legacyBytes("08 0a 00000000"))
    }

    func testShutdownReasonFromTheDecisionCoreNamesTheLastAccepted() {
        var session = LegacyConnectionSession()
        let output = session.receive(LegacyFixtures.frame(identifier: 5) + LegacyFixtures.frame(identifier: 6)) { request, _ in
            request.legacyIdentifier == 6 ? .shutdown : nil
        }
        XCTAssertEqual(output.action?.bytes, legacyBytes("08 0a 00000005"))
    }

    func testTheFailureIsAnsweredOnceAndLaterReadsOnlyDrop() {
        var session = LegacyConnectionSession()
        let first = session.receive(LegacyFixtures.enhanced(identifier: 1, token: []), decide: acceptAll)
        XCTAssertNotNil(first.action)
        let second = session.receive(LegacyFixtures.enhanced(identifier: 2, token: []) + LegacyFixtures.enhanced(identifier: 3), decide: acceptAll)
        XCTAssertNil(second.action)
        XCTAssertEqual(dropped(second.events), [2, 3])
        XCTAssertEqual(session.droppedCount, 2)
    }

    func testBytesAfterAnUnparseableFrameAreCountedNotDecoded() {
        var session = LegacyConnectionSession()
        _ = session.receive([0x09] + LegacyFixtures.frame(identifier: 1), decide: acceptAll)
        XCTAssertEqual(session.droppedCount, 0)
        XCTAssertEqual(session.discardedByteCount, LegacyFixtures.frame(identifier: 1).count)
    }

    /// A payload is examined once per notification: the examination made for the mistake
    /// diagnoses, or for the invalid-JSON policy, is the one the decision is given; when
    /// nothing asked for one, the decision gets none and examines the payload itself if a
    /// rule needs it.
    func testTheDecisionIsGivenThePayloadsOneExamination() {
        let object = LegacyFixtures.payload
        let array = Array("[1,2]".utf8)
        let cases: [(name: String, options: LegacySessionOptions, payload: [UInt8], expected: PayloadJSON?)] = [
            ("mistakes detected", LegacySessionOptions(), object, PayloadJSON(object)),
            ("mistakes detected, not an object", LegacySessionOptions(), array, PayloadJSON(array)),
            ("only the policy asks", LegacySessionOptions(detectsMistakes: false, invalidJSONPayload: .closeSilently), object, PayloadJSON(object)),
            ("nothing asks", LegacySessionOptions(detectsMistakes: false), object, nil),
        ]
        for test in cases {
            var session = LegacyConnectionSession(options: test.options)
            var given: [PayloadJSON?] = []
            let output = session.receive(LegacyFixtures.frame(identifier: 1, payload: test.payload)) { _, json in
                given.append(json)
                return nil
            }
            XCTAssertEqual(given, [test.expected], test.name)
            XCTAssertEqual(accepted(output.events), [1], test.name)
        }
        XCTAssertEqual(PayloadJSON(object).isObject, true)
        XCTAssertEqual(PayloadJSON(array).isObject, false)
        XCTAssertNil(PayloadJSON(array).problem)
    }
}
