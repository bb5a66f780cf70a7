import XCTest
@testable import MockAPNsCapture

/// The blocks as the pcapng specification lays them out: a section header with its
/// byte-order magic, an interface of raw IP counting nanoseconds, packet blocks with their
/// time, lengths, padded data and comments; every block's length at both ends, a multiple of 4.
final class PcapNGWriterTests: XCTestCase {
    func testEveryBlockStatesItsLengthAtBothEndsInWholeWords() throws {
        var writer = PcapNGWriter(application: "MockAPNs", comments: ["a comment of odd length"])
        let interface = writer.addInterface(linkType: PcapNGWriter.linkTypeRawIP, name: "journal")
        for size in [0, 1, 2, 3, 4, 5, 1499] {
            writer.addPacket(interface: interface, time: 1, data: [UInt8](repeating: 0xab, count: size), comment: size == 3 ? "x" : nil)
        }
        let blocks = try XCTUnwrap(PcapNGReading.blocks(writer.bytes))
        XCTAssertEqual(blocks.map(\.type), [0x0A0D_0D0A, 1, 6, 6, 6, 6, 6, 6, 6])
        for block in blocks {
            XCTAssertEqual(block.leadingLength, block.trailingLength)
            XCTAssertEqual(block.leadingLength % 4, 0)
        }
        XCTAssertEqual(blocks.reduce(0) { $0 + Int($1.leadingLength) }, writer.bytes.count)
    }

    func testTheSectionHeaderSaysByteOrderVersionUnknownLengthAndApplication() throws {
        let writer = PcapNGWriter(application: "MockAPNs", comments: ["one", "two"])
        let header = try XCTUnwrap(PcapNGReading.blocks(writer.bytes)?.first)
        // Written little-endian: the magic reads 4D 3C 2B 1A.
        XCTAssertEqual(Array(header.body[0..<4]), [0x4D, 0x3C, 0x2B, 0x1A])
        XCTAssertEqual(PcapNGReading.u16le(header.body, 4), 1)
        XCTAssertEqual(PcapNGReading.u16le(header.body, 6), 0)
        XCTAssertEqual(Array(header.body[8..<16]), [UInt8](repeating: 0xff, count: 8))
        let options = PcapNGReading.options(header.body, from: 16)
        XCTAssertEqual(options.map(\.code), [1, 1, 4])
        XCTAssertEqual(options.map { String(decoding: $0.value, as: UTF8.self) }, ["one", "two", "MockAPNs"])
        // The options end with opt_endofopt, just before the trailing length.
        XCTAssertEqual(Array(header.body.suffix(4)), [0, 0, 0, 0])
    }

    func testAnInterfaceIsRawIPWithNanosecondTimestamps() throws {
        var writer = PcapNGWriter(application: "MockAPNs")
        XCTAssertEqual(writer.addInterface(linkType: PcapNGWriter.linkTypeRawIP, name: "journal"), 0)
        XCTAssertEqual(writer.addInterface(linkType: PcapNGWriter.linkTypeRawIP, name: "second"), 1)
        let interface = try XCTUnwrap(PcapNGReading.blocks(writer.bytes)?[1])
        XCTAssertEqual(PcapNGReading.u16le(interface.body, 0), 101)
        XCTAssertEqual(PcapNGReading.u32le(interface.body, 4), 0)
        let options = PcapNGReading.options(interface.body, from: 8)
        XCTAssertEqual(options.map(\.code), [2, 9])
        XCTAssertEqual(String(decoding: options[0].value, as: UTF8.self), "journal")
        XCTAssertEqual(options[1].value, [9])
    }

    func testAPacketBlockCarriesItsTimeLengthsPaddedDataAndComment() throws {
        var writer = PcapNGWriter(application: "MockAPNs")
        let interface = writer.addInterface(linkType: PcapNGWriter.linkTypeRawIP, name: "journal")
        let time: UInt64 = 1_700_000_000_123_456_789
        writer.addPacket(interface: interface, time: time, data: [1, 2, 3, 4, 5], comment: "filled")
        let block = try XCTUnwrap(PcapNGReading.blocks(writer.bytes)?.last)
        // 4 interface + 8 time + 4 + 4 lengths + 8 data (5 padded) + 12 comment option + 4 end = 44, plus 12.
        XCTAssertEqual(block.leadingLength, 56)
        let packet = PcapNGReading.packet(block)
        XCTAssertEqual(packet.interface, 0)
        XCTAssertEqual(packet.time, time)
        XCTAssertEqual(packet.captured, 5)
        XCTAssertEqual(packet.original, 5)
        XCTAssertEqual(packet.data, [1, 2, 3, 4, 5])
        XCTAssertEqual(Array(block.body[25..<28]), [0, 0, 0], "padding is zero")
        XCTAssertEqual(packet.comments, ["filled"])
    }
}
