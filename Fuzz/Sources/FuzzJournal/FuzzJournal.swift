import CFuzzerDriver
import MockAPNsCore
import MockAPNsWire
import MockAPNsJournal

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzJournal_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// The journal's packed store: any sequence of events (strings of any bytes and lengths,
/// repeated or not, numbers at any value, every kind) reads back exactly as recorded, the
/// newest `capacity` of them, in order. A mismatch traps, so libFuzzer reports it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeBufferPointer(start: data, count: size))
    let capacity = Int(input.byte() % 16) + 1
    let journal = Journal(options: JournalOptions(capacity: capacity), clock: ServerClock(fixedAt: input.int64()))
    var recorded: [(kind: JournalEventKind, connection: UInt64?, stream: Int32?)] = []
    while !input.isEmpty, recorded.count < 200 {
        let kind = input.kind()
        let connection = input.bool() ? input.uint64() : nil
        let stream = input.bool() ? Int32(truncatingIfNeeded: input.int64()) : nil
        journal.record(kind, connection: connection, stream: stream)
        recorded.append((kind, connection, stream))
    }
    let events = journal.events()
    let expected = recorded.suffix(capacity)
    precondition(events.count == expected.count, "kept \(events.count) of \(recorded.count), capacity \(capacity)")
    for (event, want) in zip(events, expected) {
        precondition(event.kind == want.kind, "event \(event.sequence) read back as \(event.kind), recorded \(want.kind)")
        precondition(event.connectionID == want.connection && event.streamID == want.stream, "event \(event.sequence): ids")
    }
    let first = UInt64(recorded.count - events.count + 1)
    precondition(events.map(\.sequence) == events.indices.map { first + UInt64($0) }, "sequences rise by one")
    return 0
}

/// Takes values off the fuzzer's bytes; past the end, zeros and empty strings.
struct FuzzInput {
    private var bytes: Slice<UnsafeBufferPointer<UInt8>>

    init(_ buffer: UnsafeBufferPointer<UInt8>) { bytes = buffer[...] }

    var isEmpty: Bool { bytes.isEmpty }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func uint64() -> UInt64 {
        (0..<8).reduce(0) { value, _ in value << 8 | UInt64(byte()) }
    }

    mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }

    mutating func int() -> Int { Int(truncatingIfNeeded: int64()) }

    /// A string: a few fixed ones (so that repeats happen), or up to 255 bytes as they come.
    mutating func string() -> String {
        let choice = byte()
        switch choice % 4 {
        case 0: return "com.example.app"
        case 1: return String(repeating: "a1b2c3d4", count: 8)
        case 2: return ""
        default:
            let count = Int(byte())
            let taken = bytes.prefix(count)
            bytes = bytes.dropFirst(taken.count)
            return String(decoding: taken, as: UTF8.self)
        }
    }

    mutating func optionalString() -> String? { bool() ? string() : nil }

    /// An answer's id: absent, given as text, or made (its bits, in either letter case).
    mutating func messageID() -> MessageID? {
        switch byte() % 3 {
        case 0: nil
        case 1: .text(string())
        default: .uuid(UUIDBits(high: uint64(), low: uint64(), uppercase: bool()))
        }
    }

    mutating func data() -> [UInt8] { Array(string().utf8) }

    mutating func kind() -> JournalEventKind {
        switch byte() % 10 {
        case 0:
            return .connectionOpened(transport: pick(Transport.allCases), peer: optionalString())
        case 1:
            return .connectionClosed(transport: pick(Transport.allCases), closedBy: bool() ? .client : .server, reason: optionalString())
        case 2:
            let details: HTTP2FrameRecord.Details
            switch byte() % 8 {
            case 0: details = .empty
            case 1: details = .headers((0..<Int(byte() % 6)).map { _ in HTTPHeader(name: string(), value: string()) })
            case 2: details = .settings((0..<Int(byte() % 4)).map { _ in
                HTTP2Setting(identifier: UInt16(truncatingIfNeeded: uint64()), value: UInt32(truncatingIfNeeded: uint64()))
            })
            case 3: details = .rstStream(errorCode: UInt32(truncatingIfNeeded: uint64()))
            case 4: details = .goaway(errorCode: UInt32(truncatingIfNeeded: uint64()), lastStreamID: Int32(truncatingIfNeeded: int64()), debugData: data())
            case 5: details = .windowUpdate(increment: Int32(truncatingIfNeeded: int64()))
            case 6: details = .response(ResponseHead(
                status: int(), headers: (0..<Int(byte() % 4)).map { _ in HTTPHeader(name: string(), value: string()) },
                apnsID: messageID(), uniqueID: messageID(), idsAfter: Int(byte() % 5)))
            default: details = .ping(opaqueData: data())
            }
            return .http2Frame(HTTP2FrameRecord(
                direction: bool() ? .inbound : .outbound, type: HTTP2FrameType(wireValue: byte()), flags: byte(),
                streamID: Int32(truncatingIfNeeded: int64()), length: int(), details: details
            ))
        case 3:
            return .legacyFrame(JournalLegacyFrame(
                command: byte(), identifier: bool() ? UInt32(truncatingIfNeeded: uint64()) : nil, deviceToken: optionalString(),
                payloadLength: bool() ? int() : nil, frameLength: bool() ? int() : nil, problem: optionalString(),
                rawBytes: bool() ? data() : nil, dropped: bool()
            ))
        case 4:
            var record = NotificationRecord(
                transport: pick(Transport.allCases), deviceToken: string(), topic: optionalString(), pushType: optionalString(),
                requestAPNsID: optionalString(), priority: bool() ? int() : nil, expiration: bool() ? int64() : nil,
                collapseID: optionalString(), legacyIdentifier: bool() ? UInt32(truncatingIfNeeded: uint64()) : nil,
                payload: data(), authentication: JournalAuthentication(
                    kind: string(), teamID: optionalString(), keyID: optionalString(), refusal: bool() ? pick(Reason.allCases) : nil,
                    issuedAt: bool() ? int64() : nil, detail: optionalString()
                ),
                answer: answer(), dropped: bool(),
                connectionID: bool() ? uint64() : nil, streamID: bool() ? Int32(truncatingIfNeeded: int64()) : nil
            )
            record.sequence = bool() ? uint64() : 0
            record.wallTimeMilliseconds = bool() ? int64() : 0
            record.legacyCommand = bool() ? byte() : nil
            record.payloadLength = bool() ? int() : record.payloadLength
            record.problem = optionalString()
            record.handlingMicroseconds = bool() ? int() : nil
            record.environment = bool() ? pick(APNsEnvironment.allCases) : nil
            return .notification(record)
        case 5:
            return .fault(description: string())
        case 6:
            return .feedbackTuple(deviceToken: string(), timestampMilliseconds: int64())
        case 7:
            return .diagnosis(code: pick(DiagnosisCode.allCases), message: string(), figures: (0..<Int(byte() % 4)).map { _ in JournalFigure(string(), int64()) })
        case 8:
            return .delivery(DeliveryRecord(
                step: pick(DeliveryStep.allCases), cause: bool() ? pick(DeliveryCause.allCases) : nil, deviceToken: string(),
                notificationSequence: bool() ? uint64() : nil, atMilliseconds: int64(),
                untilMilliseconds: bool() ? int64() : nil, replacedBy: bool() ? uint64() : nil, rule: optionalString()
            ))
        default:
            // A kind kept beside the packed bytes, as a value.
            return .tlsFailed(JournalTLSFailure(
                reason: string(), alertSent: optionalString(), alertReceived: optionalString(), serverName: optionalString(),
                offeredALPN: bool() ? [string()] : nil, offeredVersions: [string()], offeredCipherSuites: []
            ))
        }
    }

    /// An answer with every part present or absent by turns.
    private mutating func answer() -> SentAnswer {
        var answer = SentAnswer(accepted: bool())
        answer.status = bool() ? int() : nil
        answer.reason = bool() ? pick(Reason.allCases) : nil
        answer.apnsID = messageID()
        answer.uniqueID = messageID()
        answer.timestamp = bool() ? int64() : nil
        answer.scriptedHeaders = bool() ? (0..<Int(byte() % 4)).map { _ in HTTPHeader(name: string(), value: string()) } : nil
        answer.scriptedBody = bool() ? data() : nil
        if bool() {
            answer.legacyPacket = LegacyErrorResponse(status: pick(LegacyStatus.allCases), identifier: UInt32(truncatingIfNeeded: uint64()))
        }
        if bool() {
            let code = UInt32(truncatingIfNeeded: uint64())
            answer.fault = pick([
                .closeConnection, .resetConnection, .stall, .shutdown, .resetStream(errorCode: code),
                .goAway(errorCode: code, lastStreamID: bool() ? Int32(truncatingIfNeeded: int64()) : nil),
                .lowerMaxConcurrentStreams(code), .sendGarbage(length: int(), insideTLS: bool()), .closeAfterBytes(int()),
            ] as [AppliedFault])
        }
        answer.rule = optionalString()
        answer.delayMilliseconds = bool() ? int() : nil
        answer.undelivered = optionalString()
        return answer
    }

    private mutating func pick<Value>(_ cases: [Value]) -> Value {
        cases[Int(byte()) % cases.count]
    }
}
