import MockAPNsCapture

/// Reads back what the tests' captures hold, field by field, without trusting the writer:
/// each block's type, its two total lengths and its body; a packet block's fields and
/// options; an IP packet's TCP segment.
struct PcapNGBlock {
    var type: UInt32
    var leadingLength: UInt32
    var trailingLength: UInt32
    /// Everything between the leading length and the trailing one.
    var body: [UInt8]
}

enum PcapNGReading {
    static func u16le(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    static func u32le(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(u16le(bytes, at)) | UInt32(u16le(bytes, at + 2)) << 16 }
    static func u16be(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
    static func u32be(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(u16be(bytes, at)) << 16 | UInt32(u16be(bytes, at + 2)) }

    /// The file's blocks; `nil` when a length runs past the end.
    static func blocks(_ file: [UInt8]) -> [PcapNGBlock]? {
        var blocks: [PcapNGBlock] = []
        var offset = 0
        while offset < file.count {
            guard offset + 12 <= file.count else { return nil }
            let length = Int(u32le(file, offset + 4))
            guard length >= 12, offset + length <= file.count else { return nil }
            blocks.append(PcapNGBlock(
                type: u32le(file, offset), leadingLength: UInt32(length),
                trailingLength: u32le(file, offset + length - 4), body: Array(file[(offset + 8)..<(offset + length - 4)])
            ))
            offset += length
        }
        return blocks
    }

    /// The options from `start` in a block body: code and value, up to `opt_endofopt`.
    static func options(_ body: [UInt8], from start: Int) -> [(code: UInt16, value: [UInt8])] {
        var options: [(UInt16, [UInt8])] = []
        var offset = start
        while offset + 4 <= body.count {
            let code = u16le(body, offset)
            let length = Int(u16le(body, offset + 2))
            if code == 0 { break }
            options.append((code, Array(body[(offset + 4)..<(offset + 4 + length)])))
            offset += 4 + (length + 3) / 4 * 4
        }
        return options
    }

    /// An Enhanced Packet Block's fields.
    struct Packet {
        var interface: UInt32
        var time: UInt64
        var captured: UInt32
        var original: UInt32
        var data: [UInt8]
        var comments: [String]
    }

    static func packet(_ block: PcapNGBlock) -> Packet {
        let body = block.body
        let captured = u32le(body, 12)
        let data = Array(body[20..<(20 + Int(captured))])
        let optionsStart = 20 + (Int(captured) + 3) / 4 * 4
        return Packet(
            interface: u32le(body, 0), time: UInt64(u32le(body, 4)) << 32 | UInt64(u32le(body, 8)),
            captured: captured, original: u32le(body, 16), data: data,
            comments: options(body, from: optionsStart).filter { $0.code == 1 }.map { String(decoding: $0.value, as: UTF8.self) }
        )
    }

    /// The TCP segment of an IPv4 or IPv6 packet.
    struct Segment {
        var sourcePort: UInt16
        var destinationPort: UInt16
        var sequence: UInt32
        var acknowledgement: UInt32
        var flags: UInt8
        var payload: [UInt8]
        var segmentBytes: [UInt8]
        var ipHeader: [UInt8]
    }

    static func segment(ofIPPacket data: [UInt8]) -> Segment {
        let headerLength = data[0] >> 4 == 6 ? 40 : Int(data[0] & 0x0f) * 4
        let tcp = Array(data[headerLength...])
        let offset = Int(tcp[12] >> 4) * 4
        return Segment(
            sourcePort: u16be(tcp, 0), destinationPort: u16be(tcp, 2), sequence: u32be(tcp, 4), acknowledgement: u32be(tcp, 8),
            flags: tcp[13], payload: Array(tcp[offset...]), segmentBytes: tcp, ipHeader: Array(data[..<headerLength])
        )
    }

    /// The TCP segments of a whole capture, in file order.
    static func segments(_ file: [UInt8]) -> [Segment] {
        (blocks(file) ?? []).filter { $0.type == 6 }.map { segment(ofIPPacket: packet($0).data) }
    }
}
