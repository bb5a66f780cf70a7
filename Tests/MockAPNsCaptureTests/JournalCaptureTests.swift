import XCTest
import MockAPNsCore
import MockAPNsJournal
import MockAPNsWire
@testable import MockAPNsCapture

/// The journal's records as the bytes they stand for: an HTTP/2 connection's preface and
/// frames (header blocks as HPACK literals, DATA from the notification's payload and the
/// answer's body), a legacy connection's command frame and error packet, a feedback
/// connection's tuple, each on the server's port and the client's recorded address.
final class JournalCaptureTests: XCTestCase {
    private var sequence: UInt64 = 0

    private func event(_ kind: JournalEventKind, connection: UInt64, stream: Int32? = nil, microsecond: UInt64) -> JournalEvent {
        sequence += 1
        return JournalEvent(
            sequence: sequence, wallTimeMilliseconds: 1_700_000_000_000, monotonicNanoseconds: 5_000_000 + microsecond * 1000,
            connectionID: connection, streamID: stream, kind: kind
        )
    }

    private let ports = CapturePorts(listeners: [
        .init(transport: .http2, environment: .sandbox, port: 40_001),
        .init(transport: .http2, environment: .production, port: 40_011),
        .init(transport: .legacy, environment: .sandbox, port: 40_002),
        .init(transport: .feedback, environment: .sandbox, port: 40_003),
    ])

    func testAnHTTP2ConnectionIsItsPrefaceAndFramesWithBodiesFromItsRecords() throws {
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let request: [HTTPHeader] = [
            HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":path", value: "/3/device/abcd"),
            HTTPHeader(name: "apns-topic", value: "com.example.app"),
        ]
        var record = NotificationRecord(
            transport: .http2, deviceToken: "abcd", topic: "com.example.app", payload: payload,
            authentication: JournalAuthentication(kind: "none"), accepted: false, reason: .badDeviceToken, status: 400
        )
        record.environment = .production
        let errorBody = Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        let events = [
            event(.connectionOpened(transport: .http2, peer: "[IPv4]127.0.0.1/127.0.0.1:51000"), connection: 7, microsecond: 0),
            event(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .settings, flags: 0, streamID: 0, length: 6,
                                               details: .settings([HTTP2Setting(identifier: 3, value: 100)]))), connection: 7, microsecond: 10),
            event(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .headers, flags: 0x04, streamID: 1, length: 30,
                                               details: .headers(request))), connection: 7, stream: 1, microsecond: 20),
            event(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .data, flags: 0x01, streamID: 1, length: payload.count)),
                  connection: 7, stream: 1, microsecond: 20),
            event(.http2Frame(HTTP2FrameRecord(direction: .outbound, type: .headers, flags: 0x04, streamID: 1, length: 10,
                                               details: .headers([HTTPHeader(name: ":status", value: "400")]))), connection: 7, stream: 1, microsecond: 30),
            event(.http2Frame(HTTP2FrameRecord(direction: .outbound, type: .data, flags: 0x01, streamID: 1, length: errorBody.count)),
                  connection: 7, stream: 1, microsecond: 30),
            event(.notification(record), connection: 7, stream: 1, microsecond: 30),
            event(.connectionClosed(transport: .http2, closedBy: .client, reason: nil), connection: 7, microsecond: 40),
        ]
        let connection = try XCTUnwrap(JournalCapture.connections(events, ports: ports).first)
        XCTAssertEqual(connection.client, CaptureEndpoint(address: .loopbackV4, port: 51_000))
        XCTAssertEqual(connection.server, CaptureEndpoint(address: .loopbackV4, port: 40_011), "the production listener")
        XCTAssertEqual(connection.application, .http2)
        XCTAssertEqual(connection.openedAt, 1_700_000_000_000_000_000)
        XCTAssertEqual(connection.closing, CaptureClosing(time: 1_700_000_000_000_040_000, byClient: true))

        // Frames going one way at one time travel together, as one read or write.
        XCTAssertEqual(connection.chunks.map(\.direction), [.clientToServer, .clientToServer, .serverToClient])
        XCTAssertEqual(connection.chunks.map(\.time), [10, 20, 30].map { 1_700_000_000_000_000_000 + $0 * 1000 })
        let settings: [UInt8] = [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]
        XCTAssertEqual(connection.chunks[0].bytes, Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + settings)
        let block = HPACKLiterals.block(request)
        let headers: [UInt8] = [0, 0, UInt8(block.count), 1, 0x04, 0, 0, 0, 1] + block
        let data: [UInt8] = [0, 0, UInt8(payload.count), 0, 0x01, 0, 0, 0, 1] + payload
        XCTAssertEqual(connection.chunks[1].bytes, headers + data)
        let status = HPACKLiterals.block([HTTPHeader(name: ":status", value: "400")])
        XCTAssertEqual(connection.chunks[2].bytes,
                       [0, 0, UInt8(status.count), 1, 0x04, 0, 0, 0, 1] + status + [0, 0, UInt8(errorBody.count), 0, 0x01, 0, 0, 0, 1] + errorBody)
        XCTAssertTrue(connection.comment?.contains("journal connection 7") ?? false)
    }

    func testDataNoRecordKeptIsSpacesAndSaysSo() throws {
        let events = [
            event(.connectionOpened(transport: .http2, peer: "[IPv6]::1/::1:51001"), connection: 3, microsecond: 0),
            event(.http2Frame(HTTP2FrameRecord(direction: .inbound, type: .data, flags: 0, streamID: 5, length: 4)),
                  connection: 3, stream: 5, microsecond: 1),
        ]
        let connection = try XCTUnwrap(JournalCapture.connections(events, ports: ports).first)
        XCTAssertEqual(connection.client.address, .loopbackV6)
        XCTAssertEqual(connection.server.address, .loopbackV6)
        XCTAssertEqual(Array(connection.chunks[0].bytes.suffix(4)), Array("    ".utf8))
        XCTAssertEqual(connection.chunks[0].comment, "DATA stream 5: 4 of its 4 bytes not recorded (spaces here)")
        XCTAssertNil(connection.closing, "still open: no FIN")
    }

    func testALegacyNotificationIsItsCommandFrameAndARefusalItsErrorPacket() throws {
        let token = String(repeating: "ab", count: 32)
        let payload = Array(#"{"aps":{}}"#.utf8)
        var record = NotificationRecord(
            transport: .legacy, deviceToken: token, priority: 10, expiration: 1_800_000_000, legacyIdentifier: 77, payload: payload,
            authentication: JournalAuthentication(kind: "certificate"),
            answer: SentAnswer(reason: .badDeviceToken, legacyPacket: LegacyErrorResponse(status: .invalidToken, identifier: 77), accepted: false)
        )
        record.legacyCommand = 2
        let frameLength = 5 + (3 + 32) + (3 + payload.count) + (3 + 4) + (3 + 4) + (3 + 1)
        let events = [
            event(.connectionOpened(transport: .legacy, peer: "[IPv4]127.0.0.1/127.0.0.1:52000"), connection: 9, microsecond: 0),
            event(.legacyFrame(JournalLegacyFrame(command: 2, identifier: 77, deviceToken: token, payloadLength: payload.count,
                                                  frameLength: frameLength)), connection: 9, microsecond: 5),
            event(.notification(record), connection: 9, microsecond: 5),
            event(.connectionClosed(transport: .legacy, closedBy: .server, reason: nil), connection: 9, microsecond: 6),
        ]
        let connection = try XCTUnwrap(JournalCapture.connections(events, ports: ports).first)
        XCTAssertEqual(connection.server.port, 40_002)
        XCTAssertEqual(connection.application, .legacyGateway)
        var frame: [UInt8] = [2, 0, 0, 0, UInt8(frameLength - 5)]
        frame += [1, 0, 32] + [UInt8](repeating: 0xab, count: 32)
        frame += [2, 0, UInt8(payload.count)] + payload
        frame += [3, 0, 4, 0, 0, 0, 77]
        frame += [4, 0, 4] + [0x6B, 0x49, 0xD2, 0x00]  // 1,800,000,000
        frame += [5, 0, 1, 10]
        XCTAssertEqual(connection.chunks.map(\.bytes), [frame, [8, 8, 0, 0, 0, 77]])
        XCTAssertEqual(connection.chunks.map(\.direction), [.clientToServer, .serverToClient])
        XCTAssertNil(connection.chunks[0].comment, "the same length as the client's frame")
        XCTAssertEqual(connection.closing?.byClient, false)
    }

    func testARefusedLegacyFrameIsTheBytesRecordedOfIt() throws {
        let events = [
            event(.connectionOpened(transport: .legacy, peer: "[IPv4]127.0.0.1/127.0.0.1:52001"), connection: 2, microsecond: 0),
            event(.legacyFrame(JournalLegacyFrame(command: 9, problem: "unknown command 9", rawBytes: [9, 1, 2])), connection: 2, microsecond: 1),
        ]
        let connection = try XCTUnwrap(JournalCapture.connections(events, ports: ports).first)
        XCTAssertEqual(connection.chunks.map(\.bytes), [[9, 1, 2]])
        XCTAssertEqual(connection.chunks[0].comment, "refused frame: its first 3 bytes as recorded")
    }

    func testAFeedbackConnectionSendsItsTuples() throws {
        let token = String(repeating: "0f", count: 32)
        let events = [
            event(.connectionOpened(transport: .feedback, peer: "[IPv4]127.0.0.1/127.0.0.1:53000"), connection: 4, microsecond: 0),
            event(.feedbackTuple(deviceToken: token, timestampMilliseconds: 1_700_000_000_999), connection: 4, microsecond: 2),
        ]
        let connection = try XCTUnwrap(JournalCapture.connections(events, ports: ports).first)
        XCTAssertEqual(connection.server.port, 40_003)
        XCTAssertEqual(connection.chunks.map(\.bytes), [[0x65, 0x53, 0xF1, 0x00, 0, 32] + [UInt8](repeating: 0x0f, count: 32)])
        XCTAssertEqual(connection.chunks.map(\.direction), [.serverToClient])
    }

    func testTheFileNamesTheDissectorsOfItsPorts() throws {
        let events = [
            event(.connectionOpened(transport: .http2, peer: "[IPv4]127.0.0.1/127.0.0.1:51000"), connection: 1, microsecond: 0),
            event(.connectionOpened(transport: .legacy, peer: "[IPv4]127.0.0.1/127.0.0.1:51001"), connection: 2, microsecond: 1),
        ]
        let file = JournalCapture.pcapng(events, ports: ports)
        let header = try XCTUnwrap(PcapNGReading.blocks(file)?.first)
        let comments = PcapNGReading.options(header.body, from: 16).filter { $0.code == 1 }.map { String(decoding: $0.value, as: UTF8.self) }
        XCTAssertTrue(comments.contains { $0.contains("-d tcp.port==40001,http2") && $0.contains("-d tcp.port==40002,mockapns_gateway") }, "\(comments)")
        // Two handshakes of three packets each, in time order.
        let segments = PcapNGReading.segments(file)
        XCTAssertEqual(segments.map(\.destinationPort), [40_001, 51_000, 40_001, 40_002, 51_001, 40_002])
    }
}
