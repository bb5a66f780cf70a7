import XCTest
@testable import MockAPNsCore
@testable import MockAPNsLegacy

/// The decoder must give the same events however the stream is cut into reads.
final class LegacyStreamingTests: XCTestCase {
    /// A mixed stream: all three commands, varied sizes, a few rejected frames that keep
    /// framing intact (empty frame, wrong token size, oversized skipped payload).
    func makeStream(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var stream: [UInt8] = []
        for index in 0..<count {
            let identifier = UInt32(index)
            let alert = String(repeating: "é", count: Int.random(in: 0...200, using: &random))
            let payload = Array(#"{"aps":{"alert":"\#(alert)"}}"#.utf8)
            let token = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            switch Int.random(in: 0..<20, using: &random) {
            case 0:
                stream += legacyBytes("02 00000000")
            case 1:
                stream += LegacyFixtures.enhanced(identifier: identifier, token: Array(token.prefix(20)), payload: payload)
            case 2:
                stream += LegacyFixtures.enhanced(identifier: identifier, payload: [UInt8](repeating: 0x7B, count: 3000))
            case 3...6:
                stream += LegacyNotification(command: .simple, token: token, payload: payload).encoded()
            case 7...12:
                stream += LegacyNotification(command: .enhanced, identifier: identifier, expiry: identifier * 7, token: token, payload: payload).encoded()
            default:
                let priority: Priority? = [nil, .powerAware, .immediate].randomElement(using: &random) ?? nil
                stream += LegacyNotification(command: .frame, identifier: identifier, expiry: 0, token: token, payload: payload, priority: priority).encoded()
            }
        }
        return stream
    }

    func feedInChunks(_ stream: [UInt8], seed: UInt64, maximumChunk: Int) -> [LegacyDecoderEvent] {
        var random = SeededRandom(seed: seed)
        var decoder = LegacyFrameDecoder()
        var events: [LegacyDecoderEvent] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + Int.random(in: 1...maximumChunk, using: &random))
            stream[start..<end].withUnsafeBytes { decoder.feed($0) { event, _ in events.append(event) } }
            start = end
        }
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        return events
    }

    func testRandomSplitPointsGiveTheSameEvents() {
        let stream = makeStream(count: 500, seed: 42)
        let whole = legacyDecodeAll(stream)
        XCTAssertGreaterThan(whole.notifications.count, 400)
        XCTAssertGreaterThan(whole.errors.count, 10)
        XCTAssertFalse(whole.errors.contains { $0.endsStream })
        for (seed, chunk) in [(1, 7), (2, 64), (3, 300), (4, 5000)] as [(UInt64, Int)] {
            assertSameEvents(feedInChunks(stream, seed: seed, maximumChunk: chunk), whole, "chunks up to \(chunk) bytes")
        }
    }

    func testOneByteAtATime() {
        let stream = makeStream(count: 200, seed: 7)
        assertSameEvents(feedInChunks(stream, seed: 0, maximumChunk: 1), legacyDecodeAll(stream), "one byte at a time")
    }

    func testAFrameCompletedByItsLastByteIsEmittedAtOnce() {
        let frame = LegacyFixtures.frame(identifier: 77)
        var decoder = LegacyFrameDecoder()
        XCTAssertEqual(decoder.feed(Array(frame.dropLast())), [])
        XCTAssertEqual(decoder.feed([frame[frame.count - 1]]).notifications.map(\.identifier), [77])
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testManyFramesInOneFeed() {
        var stream: [UInt8] = []
        for identifier in 0..<1000 as Range<UInt32> { stream += LegacyFixtures.frame(identifier: identifier) }
        let events = legacyDecodeAll(stream)
        XCTAssertEqual(events.notifications.map(\.identifier), (0..<1000).map { Optional(UInt32($0)) })
    }

    func testPendingBufferHoldsOnlyTheSplitFrame() {
        let first = LegacyFixtures.frame(identifier: 1)
        let second = LegacyFixtures.frame(identifier: 2)
        var decoder = LegacyFrameDecoder()
        _ = decoder.feed(first + second.prefix(10))
        XCTAssertEqual(decoder.bufferedByteCount, 10)
        _ = decoder.feed(Array(second.dropFirst(10)))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    /// What the gateway's frame deadline reads: the frame begun, how much of it came, and how
    /// much the decoder waits for; nothing between frames or once a frame was refused.
    func testAnIncompleteFrameSaysHowMuchCameAndHowMuchIsAwaited() {
        let whole = LegacyFixtures.frame(identifier: 1)
        var session = LegacyConnectionSession()
        XCTAssertNil(session.incompleteFrame)
        _ = session.receive(Array(whole.prefix(3)), decide: { _, _ in nil })
        XCTAssertEqual(session.incompleteFrame, LegacyIncompleteFrame(command: 2, received: 3, awaited: 5), "the header is awaited first")
        _ = session.receive(Array(whole.dropFirst(3).prefix(10)), decide: { _, _ in nil })
        XCTAssertEqual(session.incompleteFrame, LegacyIncompleteFrame(command: 2, received: 13, awaited: whole.count))
        XCTAssertEqual(session.framesDecided, 0)
        // The rest of it, and the start of the next frame: a new frame, one decided.
        _ = session.receive(Array(whole.dropFirst(13)) + [2, 0], decide: { _, _ in nil })
        XCTAssertEqual(session.incompleteFrame, LegacyIncompleteFrame(command: 2, received: 2, awaited: 5))
        XCTAssertEqual(session.framesDecided, 1)

        // A command-2 frame whose payload item declares 65,535 bytes, of which 10 come: the
        // frame (under the longest the decoder reads) is awaited whole.
        let declared = LegacyFixtures.rawFrame([(2, [UInt8](repeating: 0x7B, count: 65_535))])
        var waiting = LegacyConnectionSession()
        _ = waiting.receive(Array(declared.prefix(10)), decide: { _, _ in nil })
        XCTAssertEqual(waiting.incompleteFrame, LegacyIncompleteFrame(command: 2, received: 10, awaited: 5 + 3 + 65_535))

        // After a refusal nothing is judged any more, so nothing is awaited.
        var refused = LegacyConnectionSession()
        _ = refused.receive(LegacyFixtures.frame(identifier: 1, token: [1, 2, 3]) + Array(whole.prefix(8)), decide: { _, _ in nil })
        XCTAssertTrue(refused.isClosing)
        XCTAssertNil(refused.incompleteFrame)
    }

    func testCorruptedStreamsNeverTrapAndStayBounded() {
        var random = SeededRandom(seed: 99)
        let clean = makeStream(count: 60, seed: 3)
        for round in 0..<200 {
            var stream = clean
            // Flip a few bytes anywhere (lengths, commands, item ids, payloads).
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                stream[Int.random(in: 0..<stream.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if round % 4 == 0 { stream = (0..<4000).map { _ in UInt8.random(in: 0...255, using: &random) } }
            var session = LegacyConnectionSession(options: LegacySessionOptions(parseErrorPolicy: round % 2 == 0 ? .statusPacket : .silentClose))
            var decoder = LegacyFrameDecoder()
            var start = 0
            var actions = 0
            while start < stream.count {
                let end = min(stream.count, start + Int.random(in: 1...700, using: &random))
                let chunk = Array(stream[start..<end])
                if session.receive(chunk, decide: { _, _ in nil }).action != nil { actions += 1 }
                _ = decoder.feed(chunk)
                XCTAssertLessThanOrEqual(decoder.bufferedByteCount, LegacyLimits.maximumFrameLength)
                start = end
            }
            XCTAssertLessThanOrEqual(actions, 1)
        }
    }

    func testThroughputSmoke() {
        // Not a benchmark (debug builds are slow); it guards against accidental quadratic
        // behaviour, such as re-copying the buffer on every frame.
        var stream: [UInt8] = []
        for identifier in 0..<20_000 as Range<UInt32> { stream += LegacyFixtures.frame(identifier: identifier) }
        var decoder = LegacyFrameDecoder()
        var count = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            var start = 0
            while start < stream.count {
                let end = min(stream.count, start + 16_384 + 13)
                stream[start..<end].withUnsafeBytes { decoder.feed($0) { event, _ in if case .notification = event { count += 1 } } }
                start = end
            }
        }
        XCTAssertEqual(count, 20_000)
        XCTAssertLessThan(elapsed, .seconds(5))
    }
}

/// Regressions the frame decoder's fuzzer found.
final class LegacyStreamingRegressionTests: XCTestCase {
    /// A command-0 frame whose payload length reads too large, its token bytes starting
    /// `05 02 7b 22` ("a 1282-byte payload, then JSON"): read whole, the bytes after it let a
    /// diagnosis explain it as a token left out; split into reads of 4, 1, 2, 3, 4, ... bytes
    /// they do not. The status answered and what the codec refused are the same either way.
    func testATokenLeftOutExplanationDoesNotChangeTheRefusalWhenTheReadsSplitIt() {
        let seed = 3
        let bytes = legacyBytes("""
            00 0020 05027b22617073223a7b22616ca1b2d4c3a1b2b2c3b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4
            02 0016 7b22617073223a7b22616ca1b2d4c3a1b265c3
            """)
        var whole = LegacyFrameDecoder()
        let wholeErrors = whole.feed(bytes).compactMap(Self.error)
        var split = LegacyFrameDecoder()
        var splitErrors: [LegacyFrameError] = []
        var index = 0, step = 0
        while index < bytes.count {
            let length = min(bytes.count - index, 1 + (seed + step * 7) % (seed + 1))
            splitErrors += split.feed(Array(bytes[index..<index + length])).compactMap(Self.error)
            index += length
            step += 1
        }
        XCTAssertEqual(wholeErrors.count, 1)
        XCTAssertEqual(wholeErrors.map(\.status), splitErrors.map(\.status), "the answer on the wire")
        XCTAssertEqual(wholeErrors.map(\.splitInvariant), splitErrors.map(\.splitInvariant))
        XCTAssertEqual(whole.hasStopped, split.hasStopped)
        XCTAssertNotEqual(wholeErrors, splitErrors, "read whole, the bytes after the frame explain it; split, they are not all there")
    }

    private static func error(_ event: LegacyDecoderEvent) -> LegacyFrameError? {
        if case .invalidFrame(let error) = event { return error }
        return nil
    }
}
