/// The HTTP/2 frame types (RFC 9113, section 6).
package enum HTTP2FrameType: Sendable, Hashable, CustomStringConvertible {
    case data, headers, priority, rstStream, settings, pushPromise, ping, goaway, windowUpdate,
        continuation
    case unknown(UInt8)

    /// The type for the byte on the wire.
    package init(wireValue: UInt8) {
        switch wireValue {
        case 0x0: self = .data
        case 0x1: self = .headers
        case 0x2: self = .priority
        case 0x3: self = .rstStream
        case 0x4: self = .settings
        case 0x5: self = .pushPromise
        case 0x6: self = .ping
        case 0x7: self = .goaway
        case 0x8: self = .windowUpdate
        case 0x9: self = .continuation
        default: self = .unknown(wireValue)
        }
    }

    /// The byte on the wire.
    package var wireValue: UInt8 {
        switch self {
        case .data: 0x0
        case .headers: 0x1
        case .priority: 0x2
        case .rstStream: 0x3
        case .settings: 0x4
        case .pushPromise: 0x5
        case .ping: 0x6
        case .goaway: 0x7
        case .windowUpdate: 0x8
        case .continuation: 0x9
        case .unknown(let value): value
        }
    }

    /// The RFC name, `WINDOW_UPDATE`.
    package var description: String {
        switch self {
        case .data: "DATA"
        case .headers: "HEADERS"
        case .priority: "PRIORITY"
        case .rstStream: "RST_STREAM"
        case .settings: "SETTINGS"
        case .pushPromise: "PUSH_PROMISE"
        case .ping: "PING"
        case .goaway: "GOAWAY"
        case .windowUpdate: "WINDOW_UPDATE"
        case .continuation: "CONTINUATION"
        case .unknown(let value): "UNKNOWN(0x\(String(value, radix: 16)))"
        }
    }

    /// The type an RFC name (`description`) stands for, as a journal file spells it.
    package init?(name: String) {
        for value in UInt8(0)...UInt8(9) where Self(wireValue: value).description == name {
            self.init(wireValue: value)
            return
        }
        guard name.hasPrefix("UNKNOWN(0x"), name.hasSuffix(")"),
              let value = UInt8(name.dropFirst("UNKNOWN(0x".count).dropLast(), radix: 16) else { return nil }
        self = .unknown(value)
    }
}

/// Flag bits of a frame header. Their meaning depends on the frame type.
package enum HTTP2FrameFlags {
    /// DATA, HEADERS: the sender's last frame on the stream.
    package static let endStream: UInt8 = 0x01
    /// SETTINGS, PING: an acknowledgement.
    package static let ack: UInt8 = 0x01
    /// HEADERS, PUSH_PROMISE, CONTINUATION: the header block is complete.
    package static let endHeaders: UInt8 = 0x04
    /// DATA, HEADERS, PUSH_PROMISE: padding is present.
    package static let padded: UInt8 = 0x08
    /// HEADERS: priority fields are present.
    package static let priority: UInt8 = 0x20
}

/// One SETTINGS parameter (RFC 9113, section 6.5.2).
package struct HTTP2Setting: Sendable, Hashable, CustomStringConvertible {
    package static let headerTableSize: UInt16 = 0x1
    package static let enablePush: UInt16 = 0x2
    package static let maxConcurrentStreams: UInt16 = 0x3
    package static let initialWindowSize: UInt16 = 0x4
    package static let maxFrameSize: UInt16 = 0x5
    package static let maxHeaderListSize: UInt16 = 0x6

    /// The parameter, one of the constants above or any other the peer sent.
    package var identifier: UInt16
    package var value: UInt32

    package init(identifier: UInt16, value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    /// The parameters' RFC names, by identifier (RFC 9113 section 6.5.2, RFC 8441, RFC 9218).
    private static let names = [
        "", "HEADER_TABLE_SIZE", "ENABLE_PUSH", "MAX_CONCURRENT_STREAMS", "INITIAL_WINDOW_SIZE", "MAX_FRAME_SIZE",
        "MAX_HEADER_LIST_SIZE", "", "ENABLE_CONNECT_PROTOCOL", "NO_RFC7540_PRIORITIES",
    ]

    /// The RFC name, `MAX_CONCURRENT_STREAMS`, or the identifier in hex (`0xa`).
    package var name: String {
        let index = Int(identifier)
        if index < Self.names.count, !Self.names[index].isEmpty { return Self.names[index] }
        return "0x" + String(identifier, radix: 16)
    }

    /// The parameter a name (`name`) stands for.
    package init?(name: String, value: UInt32) {
        if let index = Self.names.firstIndex(of: name), !name.isEmpty {
            self.init(identifier: UInt16(index), value: value)
        } else if name.hasPrefix("0x"), let identifier = UInt16(name.dropFirst(2), radix: 16) {
            self.init(identifier: identifier, value: value)
        } else {
            return nil
        }
    }

    package var description: String { "\(name)=\(value)" }
}

/// A description of one frame the server received or sent, for a journal.
///
/// Header blocks are reported whole: nghttp2 joins a HEADERS frame and its CONTINUATION
/// frames before anyone sees them, so `length` is that of the HEADERS frame and `headers`
/// holds the complete decoded list. Frames nghttp2 drops before processing them (frames of
/// unknown type, streams opened after a GOAWAY) are not recorded; inbound frames it rejects
/// as invalid are, just before the error they cause.
package struct HTTP2FrameRecord: Sendable, Hashable {
    /// Which way the frame travelled.
    package enum Direction: String, Sendable, Hashable, CaseIterable {
        case inbound, outbound
    }

    /// What the frame says beyond its header, decoded.
    package enum Details: Sendable, Hashable {
        /// Nothing beyond the frame header is decoded (DATA, PRIORITY, unknown types).
        /// Not `none`, which would read as `Optional.none` wherever a record is optional.
        case empty
        /// HEADERS: the decoded header list, pseudo-headers first.
        case headers([HTTPHeader])
        /// HEADERS of a response the server submitted, as submitted: the record shares the
        /// response's list and ids rather than building a new list with `:status` in front
        /// for every response; it reads (``headerList``), packs and compares as that
        /// `.headers` list.
        case response(ResponseHead)
        /// SETTINGS: the parameters in frame order (empty for an ACK).
        case settings([HTTP2Setting])
        /// RST_STREAM: the error code.
        case rstStream(errorCode: UInt32)
        /// GOAWAY: the error code, the last stream the sender processed, and its debug data.
        case goaway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8])
        /// WINDOW_UPDATE: the increment.
        case windowUpdate(increment: Int32)
        /// PING: the eight opaque bytes.
        case ping(opaqueData: [UInt8])
    }

    package var direction: Direction
    package var type: HTTP2FrameType
    /// The flag byte; test bits with ``has(_:)`` and ``HTTP2FrameFlags``.
    package var flags: UInt8
    /// 0 for connection-level frames (SETTINGS, PING, GOAWAY, connection WINDOW_UPDATE).
    package var streamID: Int32
    /// The payload length from the frame header.
    package var length: Int
    package var details: Details

    package init(
        direction: Direction, type: HTTP2FrameType, flags: UInt8, streamID: Int32, length: Int,
        details: Details = .empty
    ) {
        self.direction = direction
        self.type = type
        self.flags = flags
        self.streamID = streamID
        self.length = length
        self.details = details
    }

    /// Whether `flag` (see ``HTTP2FrameFlags``) is set.
    package func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

extension HTTP2FrameRecord.Details {
    /// A HEADERS frame's header list, pseudo-headers first; `nil` for other frames.
    package var headerList: [HTTPHeader]? {
        switch self {
        case .headers(let headers): headers
        case .response(let response): response.fields
        case .empty, .settings, .rstStream, .goaway, .windowUpdate, .ping: nil
        }
    }

    // A response's details equal the `.headers` list they stand for (a record read back
    // from the journal holds that list).
    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.headers, .headers), (.headers, .response), (.response, .headers), (.response, .response):
            return lhs.headerList == rhs.headerList
        case (.empty, .empty): return true
        case (.settings(let a), .settings(let b)): return a == b
        case (.rstStream(let a), .rstStream(let b)): return a == b
        case (.goaway(let a1, let a2, let a3), .goaway(let b1, let b2, let b3)): return a1 == b1 && a2 == b2 && a3 == b3
        case (.windowUpdate(let a), .windowUpdate(let b)): return a == b
        case (.ping(let a), .ping(let b)): return a == b
        case (.empty, _), (.headers, _), (.response, _), (.settings, _), (.rstStream, _), (.goaway, _), (.windowUpdate, _), (.ping, _):
            return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .empty: hasher.combine(0)
        case .headers, .response: hasher.combine(1); hasher.combine(headerList)
        case .settings(let settings): hasher.combine(2); hasher.combine(settings)
        case .rstStream(let code): hasher.combine(3); hasher.combine(code)
        case .goaway(let code, let last, let data): hasher.combine(4); hasher.combine(code); hasher.combine(last); hasher.combine(data)
        case .windowUpdate(let increment): hasher.combine(5); hasher.combine(increment)
        case .ping(let data): hasher.combine(6); hasher.combine(data)
        }
    }
}
