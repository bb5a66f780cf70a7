import MockAPNsCore
import MockAPNsJSON
import MockAPNsJournal
import MockAPNsLegacy
import MockAPNsWire

/// One connection's events turned into its capture, event by event in journal order.
struct ConnectionBuilder {
    let id: UInt64
    let firstTime: UInt64
    private var transport: Transport?
    private var peer: String?
    private var openedAt: UInt64?
    private var environment: APNsEnvironment?
    private var notes: [String] = []
    private var closing: CaptureClosing?
    private var chunks: [CaptureChunk] = []
    private var sawHTTP2 = false
    private var prefaceWritten = false
    /// How far into each stream's body (by direction) the DATA frames so far reached.
    private var bodyOffsets: [StreamBodies.Key: Int] = [:]
    /// A legacy frame waiting for the notification recorded right after it.
    private var pendingFrame: (frame: JournalLegacyFrame, time: UInt64)?

    /// What stands for the bytes of a body no record kept.
    static let filler = UInt8(ascii: " ")
    /// The longest HTTP/2 frame payload (a 24-bit length).
    static let largestFrame = 0xff_ffff

    init(id: UInt64, firstTime: UInt64) {
        self.id = id
        self.firstTime = firstTime
    }

    mutating func take(_ event: JournalEvent, at time: UInt64, bodies: StreamBodies) {
        switch event.kind {
        case .connectionOpened(let transport, let peer):
            self.transport = transport
            self.peer = peer
            openedAt = time
        case .connectionClosed(let transport, let closedBy, let reason):
            flushPendingFrame(notification: nil)
            self.transport = self.transport ?? transport
            closing = CaptureClosing(time: time, byClient: closedBy == .client)
            notes.append("closed by the \(closedBy.rawValue)" + (reason.map { ": \($0)" } ?? ""))
        case .tlsEstablished, .tlsFailed:
            notes.append(event.kind.summary)
        case .http2Frame(let frame):
            sawHTTP2 = true
            take(frame, stream: event.streamID ?? frame.streamID, at: time, bodies: bodies)
        case .legacyFrame(let frame):
            flushPendingFrame(notification: nil)
            pendingFrame = (frame, time)
        case .notification(let record):
            environment = environment ?? record.environment
            if record.transport == .legacy || pendingFrame != nil {
                flushPendingFrame(notification: record)
                if let packet = record.answer.legacyPacket {
                    append(CaptureChunk(
                        time: time, direction: .serverToClient,
                        bytes: packet.bytes
                    ))
                }
            }
        case .feedbackTuple(let token, let milliseconds):
            // The service sends only tuples it can write (32-bit seconds, a 16-bit token length).
            if let tuple = FeedbackTuple(secondsSince1970: Int64(milliseconds / 1000), token: HexDigits.bytes(hex: token) ?? []) {
                append(CaptureChunk(time: time, direction: .serverToClient, bytes: tuple.bytes))
            }
        case .broadcast, .fault, .diagnosis, .channelOperation, .verdict, .delivery:
            break
        }
    }

    // MARK: HTTP/2

    private mutating func take(_ frame: HTTP2FrameRecord, stream: Int32, at time: UInt64, bodies: StreamBodies) {
        var bytes: [UInt8] = []
        var comment: String?
        if frame.direction == .inbound, !prefaceWritten {
            prefaceWritten = true
            bytes += HTTP2FrameBytes.clientPreface
        }
        var data: [UInt8] = []
        if case .data = frame.type {
            let key = StreamBodies.Key(connection: id, stream: stream, direction: frame.direction)
            let body = bodies.body(connection: id, stream: stream, direction: frame.direction) ?? []
            let start = min(bodyOffsets[key, default: 0], body.count)
            // A frame's length is 24 bits, whatever a file claims.
            let wanted = min(max(0, frame.length), Self.largestFrame)
            let end = min(body.count, start + wanted)
            data = Array(body[start..<end])
            bodyOffsets[key] = start + wanted
            if data.count < wanted {
                comment = "DATA stream \(stream): \(wanted - data.count) of its \(wanted) bytes not recorded (spaces here)"
                data += [UInt8](repeating: Self.filler, count: wanted - data.count)
            }
        }
        bytes += HTTP2FrameBytes.frame(frame, data: data)
        let direction: CaptureDirection = frame.direction == .inbound ? .clientToServer : .serverToClient
        append(CaptureChunk(time: time, direction: direction, bytes: bytes, comment: comment))
    }

    // MARK: The legacy gateway

    /// Writes the waiting frame, from `notification` when it is the frame's own record.
    private mutating func flushPendingFrame(notification: NotificationRecord?) {
        guard let pending = pendingFrame else { return }
        pendingFrame = nil
        let frame = pending.frame
        let time = pending.time
        var comment: String?
        var bytes: [UInt8]
        if frame.problem != nil, let raw = frame.rawBytes {
            bytes = raw
            comment = "refused frame: its first \(raw.count) bytes as recorded"
        } else {
            // A payload's length is 16 bits on this protocol, whatever a file claims.
            let payloadLength = min(max(0, frame.payloadLength ?? notification?.payloadLength ?? 0), Int(UInt16.max))
            var payload = Array((notification?.payload ?? []).prefix(payloadLength))
            if payload.count < payloadLength {
                comment = "\(payloadLength - payload.count) payload bytes not recorded (spaces here)"
                payload += [UInt8](repeating: Self.filler, count: payloadLength - payload.count)
            }
            let token = HexDigits.bytes(hex: frame.deviceToken ?? notification?.deviceToken ?? "") ?? []
            if let command = LegacyCommand(rawValue: frame.command) {
                // The frame as the client's encoder writes it (`LegacyNotification.encoded()`).
                bytes = LegacyNotification(
                    command: command, identifier: frame.identifier ?? notification?.legacyIdentifier,
                    expiry: notification?.expiration.map { UInt32(clamping: $0) }, token: token, payload: payload,
                    priority: notification?.priority.flatMap { Priority(rawValue: $0) }, frameLength: 0
                ).encoded()
            } else {
                bytes = frame.rawBytes ?? [frame.command]
            }
            if let recorded = frame.frameLength, recorded != bytes.count {
                comment = [comment, "re-encoded as \(bytes.count) bytes; the client's frame was \(recorded)"]
                    .compactMap { $0 }.joined(separator: "; ")
            }
        }
        if frame.dropped { comment = [comment, "dropped unread after the connection's failure"].compactMap { $0 }.joined(separator: "; ") }
        append(CaptureChunk(time: time, direction: .clientToServer, bytes: bytes, comment: comment))
    }

    // MARK: The connection

    /// Joins bytes going the same way at the same time into one chunk (one segment, as one
    /// read or write put them on the wire), unless the new bytes carry a note of their own.
    private mutating func append(_ chunk: CaptureChunk) {
        if chunk.comment == nil, let last = chunks.last, last.direction == chunk.direction, last.time == chunk.time {
            chunks[chunks.count - 1].bytes += chunk.bytes
        } else {
            chunks.append(chunk)
        }
    }

    mutating func connection(ports: CapturePorts) -> CapturedConnection? {
        flushPendingFrame(notification: nil)
        guard let transport = transport ?? (sawHTTP2 ? Transport.http2 : nil) else { return nil }
        var client = peer.flatMap(Self.endpoint(peer:))
        var comment = "journal connection \(id), \(transport.rawValue)"
        if client == nil {
            // The journal pushed the opening out: a stand-in port, told as such.
            client = CaptureEndpoint(address: ports.address ?? .loopbackV4, port: UInt16(truncatingIfNeeded: 10_000 + id % 50_000))
            comment += " (its opening is no longer in the journal: client address made up)"
        }
        guard let client else { return nil }
        let serverAddress = ports.address.flatMap { $0.isV6 == client.address.isV6 ? $0 : nil } ?? client.address.loopback
        let server = CaptureEndpoint(address: serverAddress, port: ports.port(of: transport, environment: environment) ?? 0)
        let application: CaptureApplication
        switch transport {
        case .http2, .channelManagement: application = .http2
        case .webPush: application = sawHTTP2 ? .http2 : .http1
        case .legacy: application = .legacyGateway
        case .feedback: application = .feedback
        }
        if application == .http1 { notes.append("HTTP/1.1: its bytes are not recorded") }
        if application == .http2, !sawHTTP2 { notes.append("no HTTP/2 frames recorded (frames are journaled unless --journal-frames off)") }
        if !notes.isEmpty { comment += "; " + notes.joined(separator: "; ") }
        return CapturedConnection(
            client: client, server: server, application: application, openedAt: openedAt ?? firstTime,
            chunks: chunks, closing: closing, comment: comment
        )
    }

    /// The address and port of NIO's description of a socket address:
    /// `[IPv4]127.0.0.1/127.0.0.1:54321`, `[IPv6]::1/::1:54321`.
    static func endpoint(peer: String) -> CaptureEndpoint? {
        let afterHost = peer.lastIndex(of: "/").map { peer.index(after: $0) } ?? peer.startIndex
        let address = peer[afterHost...]
        guard let colon = address.lastIndex(of: ":"),
              let port = UInt16(address[address.index(after: colon)...]),
              let ip = CaptureAddress(address[..<colon]) else { return nil }
        return CaptureEndpoint(address: ip, port: port)
    }
}
