/// The packets of one connection as TCP over IP: a three-way handshake at its opening, each
/// chunk in segments whose sequence numbers advance with the bytes (every segment
/// acknowledging all the other side sent before it), and FIN from each side at its close,
/// the closing side first.
package struct TCPConversation: Sendable {
    /// One IP packet and when it went.
    package struct Packet: Sendable, Equatable {
        package var time: UInt64
        package var data: [UInt8]
        package var comment: String?
    }

    /// The most payload one segment carries: an IPv4 packet's total length is 16 bits, so a
    /// larger chunk goes as several segments.
    package static let maximumSegmentPayload = 65_495
    /// The initial sequence numbers (arbitrary: Wireshark shows them relative).
    package static let clientInitialSequence: UInt32 = 0x1000_0000
    package static let serverInitialSequence: UInt32 = 0x2000_0000
    /// The window each side advertises.
    static let window: UInt16 = 65_535

    package enum Flag {
        package static let fin: UInt8 = 0x01
        package static let syn: UInt8 = 0x02
        package static let psh: UInt8 = 0x08
        package static let ack: UInt8 = 0x10
    }

    package private(set) var packets: [Packet] = []
    private let connection: CapturedConnection
    /// The next sequence number each side sends.
    private var clientNext = TCPConversation.clientInitialSequence
    private var serverNext = TCPConversation.serverInitialSequence
    private var identification: UInt16 = 0
    /// Packets never go back in time, whatever the journal's clock readings did.
    private var lastTime: UInt64 = 0

    package init(_ connection: CapturedConnection) {
        self.connection = connection
        lastTime = connection.openedAt
        let opened = connection.openedAt
        send(.clientToServer, flags: Flag.syn, payload: [], at: opened, comment: connection.comment, acknowledges: false)
        send(.serverToClient, flags: Flag.syn | Flag.ack, payload: [], at: opened)
        send(.clientToServer, flags: Flag.ack, payload: [], at: opened)
        for chunk in connection.chunks {
            var offset = 0
            var comment = chunk.comment
            while offset < chunk.bytes.count {
                let end = min(offset + Self.maximumSegmentPayload, chunk.bytes.count)
                send(chunk.direction, flags: Flag.psh | Flag.ack, payload: Array(chunk.bytes[offset..<end]), at: chunk.time, comment: comment)
                comment = nil
                offset = end
            }
        }
        if let closing = connection.closing {
            let first: CaptureDirection = closing.byClient ? .clientToServer : .serverToClient
            let second: CaptureDirection = closing.byClient ? .serverToClient : .clientToServer
            send(first, flags: Flag.fin | Flag.ack, payload: [], at: closing.time)
            send(second, flags: Flag.fin | Flag.ack, payload: [], at: closing.time)
            send(first, flags: Flag.ack, payload: [], at: closing.time)
        }
    }

    private mutating func send(
        _ direction: CaptureDirection, flags: UInt8, payload: [UInt8], at time: UInt64, comment: String? = nil,
        acknowledges: Bool = true
    ) {
        let fromClient = direction == .clientToServer
        let source = fromClient ? connection.client : connection.server
        let destination = fromClient ? connection.server : connection.client
        let sequence = fromClient ? clientNext : serverNext
        let acknowledgement = acknowledges ? (fromClient ? serverNext : clientNext) : 0
        // SYN and FIN take one sequence number each; so does every payload byte.
        var length = UInt32(truncatingIfNeeded: payload.count)
        if flags & (Flag.syn | Flag.fin) != 0 { length &+= 1 }
        if fromClient { clientNext &+= length } else { serverNext &+= length }

        var segment: [UInt8] = []
        segment.reserveCapacity(20 + payload.count)
        Self.append16(source.port, to: &segment)
        Self.append16(destination.port, to: &segment)
        Self.append32(sequence, to: &segment)
        Self.append32(acknowledgement, to: &segment)
        segment.append(5 << 4)  // data offset: 5 words, no options
        segment.append(flags)
        Self.append16(Self.window, to: &segment)
        segment += [0, 0, 0, 0]  // checksum (below), urgent pointer
        segment += payload
        let checksum = Self.checksum(
            pseudoHeader: Self.pseudoHeader(source: source.address, destination: destination.address, length: segment.count),
            segment
        )
        segment[16] = UInt8(checksum >> 8)
        segment[17] = UInt8(checksum & 0xff)

        lastTime = max(lastTime, time)
        identification &+= 1
        packets.append(Packet(
            time: lastTime, data: Self.ipHeader(source: source.address, destination: destination.address, payloadLength: segment.count, identification: identification) + segment,
            comment: comment
        ))
    }

    /// An IPv4 header (no options, don't fragment, TTL 64, with its checksum) or an IPv6
    /// header (hop limit 64) carrying TCP.
    static func ipHeader(source: CaptureAddress, destination: CaptureAddress, payloadLength: Int, identification: UInt16) -> [UInt8] {
        var header: [UInt8] = []
        if source.isV6 {
            header = [0x60, 0, 0, 0]
            append16(UInt16(clamping: payloadLength), to: &header)
            header += [6, 64]  // next header: TCP; hop limit
            header += source.bytes + destination.bytes
            return header
        }
        header = [0x45, 0]
        append16(UInt16(clamping: 20 + payloadLength), to: &header)
        append16(identification, to: &header)
        header += [0x40, 0, 64, 6, 0, 0]  // don't fragment; TTL; TCP; checksum below
        header += source.bytes + destination.bytes
        let sum = checksum(pseudoHeader: [], header)
        header[10] = UInt8(sum >> 8)
        header[11] = UInt8(sum & 0xff)
        return header
    }

    /// What TCP's checksum covers besides the segment: both addresses, the protocol and the
    /// segment's length.
    static func pseudoHeader(source: CaptureAddress, destination: CaptureAddress, length: Int) -> [UInt8] {
        var header = source.bytes + destination.bytes
        if source.isV6 {
            append32(UInt32(clamping: length), to: &header)
            header += [0, 0, 0, 6]
        } else {
            header += [0, 6]
            append16(UInt16(clamping: length), to: &header)
        }
        return header
    }

    /// The Internet checksum (RFC 1071) of the pseudo-header and the bytes.
    package static func checksum(pseudoHeader: [UInt8], _ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        for part in [pseudoHeader, bytes] {
            var index = 0
            while index + 1 < part.count {
                sum &+= UInt32(part[index]) << 8 | UInt32(part[index + 1])
                index += 2
            }
            if index < part.count { sum &+= UInt32(part[index]) << 8 }
            // Folded as it goes, so a long segment never overflows the sum.
            sum = (sum & 0xffff) &+ (sum >> 16)
        }
        while sum > 0xffff { sum = (sum & 0xffff) &+ (sum >> 16) }
        return ~UInt16(truncatingIfNeeded: sum)
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xff))
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
