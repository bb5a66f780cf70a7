import MockAPNsWire

/// HTTP/2 frames as bytes again, from the journal's records of them (RFC 9113, section 4.1:
/// a 9-byte header, then the payload).
package enum HTTP2FrameBytes {
    /// The connection preface every client sends before its first frame (RFC 9113, 3.4).
    package static let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The frame `record` describes, with `payload` as its payload when the record does not
    /// hold it (DATA). HEADERS carries the record's header list as a block of literals,
    /// ends its header block (the record stands for a HEADERS frame and its CONTINUATIONs
    /// joined), and when it announced priority, the default priority (the record keeps no
    /// priority fields). Padding is not kept: a padded frame is written unpadded.
    package static func frame(_ record: HTTP2FrameRecord, data: [UInt8] = []) -> [UInt8] {
        var flags = record.flags & ~HTTP2FrameFlags.padded
        var payload: [UInt8]
        switch record.details {
        case .headers, .response:
            let headers = record.details.headerList ?? []
            payload = []
            if record.has(HTTP2FrameFlags.priority) {
                // No dependency, not exclusive; weight 16 (the byte is weight - 1).
                payload += [0, 0, 0, 0, 15]
            }
            payload += HPACKLiterals.block(headers)
            flags |= HTTP2FrameFlags.endHeaders
        case .settings(let settings):
            payload = []
            for setting in settings {
                append16(setting.identifier, to: &payload)
                append32(setting.value, to: &payload)
            }
        case .rstStream(let code):
            payload = []
            append32(code, to: &payload)
        case .goaway(let code, let lastStream, let debugData):
            payload = []
            append32(UInt32(bitPattern: lastStream) & 0x7fff_ffff, to: &payload)
            append32(code, to: &payload)
            payload += debugData
        case .windowUpdate(let increment):
            payload = []
            append32(UInt32(bitPattern: increment) & 0x7fff_ffff, to: &payload)
        case .ping(let opaque):
            payload = Array(opaque.prefix(8)) + [UInt8](repeating: 0, count: max(0, 8 - opaque.count))
        case .empty:
            // PRIORITY's five bytes are not recorded: the default priority stands for them.
            payload = record.type == .priority ? [0, 0, 0, 0, 15] : data
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(9 + payload.count)
        let length = UInt32(clamping: payload.count) & 0xff_ffff
        bytes += [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        bytes.append(record.type.wireValue)
        bytes.append(flags)
        append32(UInt32(bitPattern: record.streamID) & 0x7fff_ffff, to: &bytes)
        return bytes + payload
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

/// A header block in HPACK's plainest form (RFC 7541): every field a literal without
/// indexing with a literal name, no Huffman coding. No table is touched, so a reader decodes
/// every block alone, in whatever order and from whatever connection it comes.
package enum HPACKLiterals {
    package static func block(_ headers: [HTTPHeader]) -> [UInt8] {
        var bytes: [UInt8] = []
        for header in headers {
            bytes.append(0x00)  // literal without indexing, new name (6.2.2)
            string(Array(header.name.utf8), into: &bytes)
            string(Array(header.value.utf8), into: &bytes)
        }
        return bytes
    }

    /// A string literal: H = 0, its length as a 7-bit prefix integer, its bytes (5.2).
    static func string(_ value: [UInt8], into bytes: inout [UInt8]) {
        integer(value.count, prefixBits: 7, into: &bytes)
        bytes += value
    }

    /// An integer with an N-bit prefix (5.1); the prefix's other bits are left 0.
    package static func integer(_ value: Int, prefixBits: Int, into bytes: inout [UInt8]) {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else {
            bytes.append(UInt8(truncatingIfNeeded: value))
            return
        }
        bytes.append(UInt8(truncatingIfNeeded: limit))
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(truncatingIfNeeded: rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }
}
