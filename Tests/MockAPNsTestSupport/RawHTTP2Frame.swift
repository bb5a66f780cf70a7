/// HTTP/2 on the wire, byte by byte, for tests that must send what no real client sends or
/// read what a real client would hide: one frame model and one set of byte builders for every
/// test target (RFC 9113).

/// Splits raw HTTP/2 bytes into frames (type, flags, stream, payload) for assertions.
package struct RawHTTP2Frame: Equatable, Sendable {
    package var type: UInt8
    package var flags: UInt8
    package var streamID: UInt32
    package var payload: [UInt8]

    package init(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8]) {
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.payload = payload
    }

    package static let goAway: UInt8 = 0x7
    package static let settings: UInt8 = 0x4

    package static func parse(_ bytes: [UInt8]) -> [RawHTTP2Frame] {
        var frames: [RawHTTP2Frame] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bigEndian(bytes[offset..<(offset + 3)]))
            let stream = bigEndian(bytes[(offset + 5)..<(offset + 9)]) & 0x7FFF_FFFF
            guard offset + 9 + length <= bytes.count else { break }
            frames.append(RawHTTP2Frame(type: bytes[offset + 3], flags: bytes[offset + 4], streamID: stream,
                                        payload: Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }

    /// For GOAWAY: the error code.
    package var goAwayErrorCode: UInt32? {
        guard type == Self.goAway, payload.count >= 8 else { return nil }
        return bigEndian(payload[4..<8])
    }

    /// For GOAWAY: the debug data as text.
    package var goAwayDebugText: String? {
        guard type == Self.goAway, payload.count >= 8 else { return nil }
        return String(decoding: payload[8...], as: UTF8.self)
    }

    /// For RST_STREAM: the error code.
    package var resetErrorCode: UInt32? {
        guard type == 0x3, payload.count == 4 else { return nil }
        return bigEndian(payload[0...])
    }

    /// For SETTINGS: the (identifier, value) pairs.
    package var settingsValues: [(UInt16, UInt32)] {
        guard type == Self.settings else { return [] }
        return stride(from: 0, to: payload.count - payload.count % 6, by: 6).map { i in
            (UInt16(bigEndian(payload[i..<(i + 2)])), bigEndian(payload[(i + 2)..<(i + 6)]))
        }
    }
}

/// A big-endian unsigned integer of up to four bytes.
package func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reduce(0) { $0 << 8 | UInt32($1) }
}

/// Builds client bytes by hand, for the tests that must send what no real client sends.
package enum ClientBytes {
    package static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    package static func frame(type: UInt8, flags: UInt8 = 0, streamID: UInt32, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [
            UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff),
            type, flags,
            UInt8(streamID >> 24 & 0x7f), UInt8(streamID >> 16 & 0xff),
            UInt8(streamID >> 8 & 0xff), UInt8(streamID & 0xff),
        ] + payload
    }

    package static let emptySettings = frame(type: 0x4, streamID: 0)
    package static let settingsAck = frame(type: 0x4, flags: 0x1, streamID: 0)

    /// HPACK for `:method POST`, `:scheme http`, `:path /`, `:authority localhost`,
    /// using the static table and one literal.
    package static let requestHeaderBlock: [UInt8] = [0x83, 0x86, 0x84, 0x01, 0x09] + Array("localhost".utf8)

    /// HPACK "literal header field without indexing, new name" (RFC 7541, 6.2.2).
    package static func literal(_ name: String, _ value: String) -> [UInt8] {
        [0x00] + length(name.utf8.count) + Array(name.utf8) + length(value.utf8.count) + Array(value.utf8)
    }

    /// An HPACK string length: a 7-bit prefix integer, no Huffman coding (RFC 7541, 5.1).
    private static func length(_ value: Int) -> [UInt8] {
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        return bytes + [UInt8(rest)]
    }

    /// A request HEADERS frame; `endStream` makes it a request without body.
    package static func headers(streamID: UInt32, endStream: Bool) -> [UInt8] {
        frame(type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), streamID: streamID, payload: requestHeaderBlock)
    }

    package static func data(streamID: UInt32, _ payload: [UInt8], endStream: Bool) -> [UInt8] {
        frame(type: 0x0, flags: endStream ? 0x1 : 0, streamID: streamID, payload: payload)
    }

    /// Preface, empty SETTINGS and (usually) the ACK of the server's SETTINGS, which makes
    /// nghttp2 apply them at once.
    package static func opening(acknowledgingSettings: Bool = true) -> [UInt8] {
        preface + emptySettings + (acknowledgingSettings ? settingsAck : [])
    }
}
