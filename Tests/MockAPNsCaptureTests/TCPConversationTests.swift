import XCTest
@testable import MockAPNsCapture

/// A connection as TCP: the three-way handshake, sequence and acknowledgement numbers that
/// advance with the bytes each way, a chunk past one segment's size split, FIN from the
/// closing side first, and headers whose checksums check.
final class TCPConversationTests: XCTestCase {
    private let client = CaptureEndpoint(address: .v4(127, 0, 0, 1), port: 50_123)
    private let server = CaptureEndpoint(address: .v4(127, 0, 0, 1), port: 2197)

    private func conversation(_ chunks: [CaptureChunk], closedByClient: Bool? = true) -> [TCPConversation.Packet] {
        TCPConversation(CapturedConnection(
            client: client, server: server, application: .http2, openedAt: 1_000, chunks: chunks,
            closing: closedByClient.map { CaptureClosing(time: 9_000, byClient: $0) }, comment: "connection 1"
        )).packets
    }

    func testTheHandshakeThenDataAdvancingTheSequenceNumbersThenFINFromTheClosingSide() {
        let packets = conversation([
            CaptureChunk(time: 2_000, direction: .clientToServer, bytes: Array(repeating: 1, count: 24)),
            CaptureChunk(time: 3_000, direction: .serverToClient, bytes: Array(repeating: 2, count: 15)),
            CaptureChunk(time: 4_000, direction: .clientToServer, bytes: Array(repeating: 3, count: 10)),
        ], closedByClient: false)
        let segments = packets.map { PcapNGReading.segment(ofIPPacket: $0.data) }
        let c = TCPConversation.clientInitialSequence
        let s = TCPConversation.serverInitialSequence
        typealias F = TCPConversation.Flag
        let expected: [(UInt16, UInt32, UInt32, UInt8, Int)] = [
            (50_123, c, 0, F.syn, 0),
            (2197, s, c + 1, F.syn | F.ack, 0),
            (50_123, c + 1, s + 1, F.ack, 0),
            (50_123, c + 1, s + 1, F.psh | F.ack, 24),
            (2197, s + 1, c + 25, F.psh | F.ack, 15),
            (50_123, c + 25, s + 16, F.psh | F.ack, 10),
            // The server closed: its FIN first, then the client's, then the last ACK.
            (2197, s + 16, c + 35, F.fin | F.ack, 0),
            (50_123, c + 35, s + 17, F.fin | F.ack, 0),
            (2197, s + 17, c + 36, F.ack, 0),
        ]
        XCTAssertEqual(segments.count, expected.count)
        for (segment, want) in zip(segments, expected) {
            XCTAssertEqual(segment.sourcePort, want.0)
            XCTAssertEqual(segment.destinationPort, segment.sourcePort == 2197 ? 50_123 : 2197)
            XCTAssertEqual(segment.sequence, want.1)
            XCTAssertEqual(segment.acknowledgement, want.2)
            XCTAssertEqual(segment.flags, want.3)
            XCTAssertEqual(segment.payload.count, want.4)
        }
        XCTAssertEqual(packets.map(\.time), [1_000, 1_000, 1_000, 2_000, 3_000, 4_000, 9_000, 9_000, 9_000])
        XCTAssertEqual(packets.first?.comment, "connection 1")
    }

    func testAChunkLargerThanOneSegmentGoesAsSeveralInOrder() {
        let size = TCPConversation.maximumSegmentPayload * 2 + 7
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let packets = conversation([CaptureChunk(time: 2_000, direction: .clientToServer, bytes: bytes, comment: "big")], closedByClient: nil)
        let data = packets.dropFirst(3).map { PcapNGReading.segment(ofIPPacket: $0.data) }
        XCTAssertEqual(data.map(\.payload.count), [TCPConversation.maximumSegmentPayload, TCPConversation.maximumSegmentPayload, 7])
        XCTAssertEqual(data.flatMap(\.payload), bytes)
        XCTAssertEqual(data.map(\.sequence), [0, 1, 2].map { TCPConversation.clientInitialSequence + 1 + UInt32($0 * TCPConversation.maximumSegmentPayload) })
        XCTAssertEqual(packets.dropFirst(3).map(\.comment), ["big", nil, nil], "a chunk's note goes on its first packet")
        // Every IPv4 packet fits its 16-bit total length.
        for packet in packets { XCTAssertEqual(Int(PcapNGReading.u16be(packet.data, 2)), packet.data.count) }
        XCTAssertEqual(packets.count, 6, "no FIN while the connection was open")
    }

    func testChecksumsOfIPv4AndTCPCheck() {
        let packets = conversation([CaptureChunk(time: 2_000, direction: .serverToClient, bytes: Array("odd".utf8))])
        for packet in packets {
            let segment = PcapNGReading.segment(ofIPPacket: packet.data)
            // A header or segment whose checksum is right sums (with it) to zero.
            XCTAssertEqual(TCPConversation.checksum(pseudoHeader: [], segment.ipHeader), 0)
            let pseudo = TCPConversation.pseudoHeader(source: client.address, destination: server.address, length: segment.segmentBytes.count)
            XCTAssertEqual(TCPConversation.checksum(pseudoHeader: pseudo, segment.segmentBytes), 0)
        }
    }

    func testIPv6ConnectionsGetIPv6Headers() {
        let v6 = CaptureEndpoint(address: .loopbackV6, port: 40_000)
        let packets = TCPConversation(CapturedConnection(
            client: v6, server: CaptureEndpoint(address: .loopbackV6, port: 2195), application: .legacyGateway, openedAt: 5,
            chunks: [CaptureChunk(time: 6, direction: .clientToServer, bytes: [2, 0, 0, 0, 0])]
        )).packets
        let data = packets[3].data
        XCTAssertEqual(data[0] >> 4, 6)
        XCTAssertEqual(Int(PcapNGReading.u16be(data, 4)), data.count - 40, "payload length")
        XCTAssertEqual(data[6], 6, "next header: TCP")
        XCTAssertEqual(Array(data[8..<24]), CaptureAddress.loopbackV6.bytes)
        XCTAssertEqual(PcapNGReading.segment(ofIPPacket: data).payload, [2, 0, 0, 0, 0])
    }

    func testPacketsNeverGoBackInTime() {
        let packets = conversation([
            CaptureChunk(time: 5_000, direction: .clientToServer, bytes: [1]),
            CaptureChunk(time: 4_000, direction: .serverToClient, bytes: [2]),
        ])
        XCTAssertEqual(packets.map(\.time), packets.map(\.time).sorted())
    }

    func testAddressesReadAsTheirFamilies() {
        XCTAssertEqual(CaptureAddress("10.1.2.3"), .v4(10, 1, 2, 3))
        XCTAssertEqual(CaptureAddress("::1"), .loopbackV6)
        XCTAssertEqual(CaptureAddress("fe80::1:2")?.bytes, [0xfe, 0x80] + Array(repeating: 0, count: 10) + [0, 1, 0, 2])
        XCTAssertNil(CaptureAddress("localhost"))
        XCTAssertNil(CaptureAddress("1.2.3.256"))
        XCTAssertNil(CaptureAddress("1::2::3"))
    }
}
