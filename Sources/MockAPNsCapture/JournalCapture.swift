import MockAPNsCore
import MockAPNsJournal
import MockAPNsWire

/// The journal's connections as a capture, made from what the journal records today: its
/// frame records and the notifications they carried, re-encoded as the bytes they stand for.
///
/// - HTTP/2: the client's connection preface (nghttp2 consumes it unrecorded) before its
///   first frame, then every recorded frame in order. A HEADERS record keeps the decoded
///   header list rather than the HPACK block, so the block is re-encoded as literals
///   (`HPACKLiterals`) until the journal keeps the raw block; provider tokens read as the
///   journal recorded them (by default without their signature). DATA carries the request's
///   payload as its notification or broadcast record kept it (the first
///   `NotificationRecord.payloadLimit` bytes) and the answer's body as the server wrote it;
///   bytes no record kept are spaces, and the packet says so.
/// - The legacy gateway: each command frame from its frame and notification records (a frame
///   the codec refused, as its first bytes recorded), the error-response packet of a refusal.
/// - The feedback service: its tuples.
///
/// Connections whose opening the journal no longer holds are written from where their
/// events begin, on a client port made from their journal number.
package enum JournalCapture {
    /// The kinds of events a capture reads.
    package static let kinds: Set<String> = [
        "connectionOpened", "connectionClosed", "tlsEstablished", "tlsFailed", "http2Frame", "legacyFrame", "notification",
        "feedbackTuple", "broadcast",
    ]

    /// The pcapng file of the connections in `events` (in journal order), with the reading
    /// hints for their ports as the section's comments.
    package static func pcapng(_ events: [JournalEvent], ports: CapturePorts) -> [UInt8] {
        let captured = connections(events, ports: ports)
        return PacketCapture.pcapng(captured, comments: PacketCapture.readingHints(for: captured))
    }

    /// Every connection `events` mention, in the order of their first events.
    package static func connections(_ events: [JournalEvent], ports: CapturePorts) -> [CapturedConnection] {
        guard let first = events.first else { return [] }
        let clock = CaptureClock(anchor: first)
        let bodies = StreamBodies(events)
        var builders: [UInt64: ConnectionBuilder] = [:]
        var order: [UInt64] = []
        for event in events {
            guard let id = event.connectionID else { continue }
            if builders[id] == nil {
                builders[id] = ConnectionBuilder(id: id, firstTime: clock.time(of: event))
                order.append(id)
            }
            builders[id]?.take(event, at: clock.time(of: event), bodies: bodies)
        }
        return order.compactMap { builders[$0]?.connection(ports: ports) }
    }
}

/// Event times as nanoseconds since 1970: the first event's wall clock, then the monotonic
/// clock's distance from it, so packets keep the journal's sub-millisecond spacing.
struct CaptureClock {
    let wallNanoseconds: Int64
    let monotonic: UInt64

    init(anchor: JournalEvent) {
        let (product, overflow) = anchor.wallTimeMilliseconds.multipliedReportingOverflow(by: 1_000_000)
        wallNanoseconds = overflow || product < 0 ? 0 : product
        monotonic = anchor.monotonicNanoseconds
    }

    func time(of event: JournalEvent) -> UInt64 {
        let later = event.monotonicNanoseconds >= monotonic
        let distance = Int64(clamping: later ? event.monotonicNanoseconds - monotonic : monotonic - event.monotonicNanoseconds)
        let (sum, overflow) = later ? wallNanoseconds.addingReportingOverflow(distance) : wallNanoseconds.subtractingReportingOverflow(distance)
        return overflow || sum < 0 ? 0 : UInt64(sum)
    }
}

/// The bodies of each HTTP/2 stream as its record keeps them: the request's payload and the
/// answer's body, found before the frames are written (a record follows its frames).
struct StreamBodies {
    struct Key: Hashable {
        var connection: UInt64
        var stream: Int32
        var direction: HTTP2FrameRecord.Direction
    }

    private(set) var bodies: [Key: [UInt8]] = [:]

    init(_ events: [JournalEvent]) {
        for event in events {
            guard let connection = event.connectionID, let stream = event.streamID else { continue }
            let request: [UInt8]
            let answer: SentAnswer
            switch event.kind {
            case .notification(let record):
                request = record.payload
                answer = record.answer
            case .broadcast(let record):
                request = record.payload
                answer = record.answer
            case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame, .fault,
                 .feedbackTuple, .diagnosis, .channelOperation, .verdict, .delivery:
                continue
            }
            bodies[Key(connection: connection, stream: stream, direction: .inbound)] = request
            if let body = Self.body(of: answer) {
                bodies[Key(connection: connection, stream: stream, direction: .outbound)] = body
            }
        }
    }

    /// The body the server wrote: a scripted answer's as given, Apple's error body for a
    /// refusal; `nil` when nothing says (an acceptance has none).
    static func body(of answer: SentAnswer) -> [UInt8]? {
        if let scripted = answer.scriptedBody { return scripted }
        guard let reason = answer.reason, let status = answer.status, !(200..<300).contains(status) else { return nil }
        return HTTP2ResponseRenderer.errorBody(reason: reason, timestamp: answer.timestamp)
    }

    func body(connection: UInt64, stream: Int32, direction: HTTP2FrameRecord.Direction) -> [UInt8]? {
        bodies[Key(connection: connection, stream: stream, direction: direction)]
    }
}
