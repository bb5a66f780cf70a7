import MockAPNsWire
internal import CNghttp2

/// Turns an `nghttp2_frame` into an ``HTTP2FrameRecord``. Only called when recording is on.
enum FrameRecordBuilder {
    /// Describes `frame`. `headers` is a HEADERS frame's header list when the session has it
    /// already: an inbound block (nghttp2 hands inbound fields to the header callback, not to
    /// the frame). `response` is the response the session submitted on the frame's stream, so
    /// the record shares that list instead of decoding copies of its strings.
    static func record(
        of frame: UnsafePointer<nghttp2_frame>,
        direction: HTTP2FrameRecord.Direction,
        headers: [HTTPHeader]? = nil,
        response: ResponseHead? = nil
    ) -> HTTP2FrameRecord {
        let header = frame.pointee.hd
        let type = HTTP2FrameType(wireValue: header.type)
        return HTTP2FrameRecord(
            direction: direction,
            type: type,
            flags: header.flags,
            streamID: header.stream_id,
            length: header.length,
            details: details(of: frame, type: type, headers: headers, response: response)
        )
    }

    private static func details(
        of frame: UnsafePointer<nghttp2_frame>,
        type: HTTP2FrameType,
        headers: [HTTPHeader]?,
        response: ResponseHead?
    ) -> HTTP2FrameRecord.Details {
        switch type {
        case .headers:
            if let response {
                return .response(response)
            }
            if let headers {
                return .headers(headers)
            }
            return .headers(decode(frame.pointee.headers.nva, count: frame.pointee.headers.nvlen))
        case .settings:
            let settings = frame.pointee.settings
            guard let entries = settings.iv, settings.niv > 0 else { return .settings([]) }
            return .settings(
                UnsafeBufferPointer(start: entries, count: settings.niv).map {
                    HTTP2Setting(identifier: UInt16(truncatingIfNeeded: $0.settings_id), value: $0.value)
                }
            )
        case .rstStream:
            return .rstStream(errorCode: frame.pointee.rst_stream.error_code)
        case .goaway:
            let goaway = frame.pointee.goaway
            let debugData = goaway.opaque_data.map {
                Array(UnsafeBufferPointer(start: $0, count: goaway.opaque_data_len))
            }
            return .goaway(
                errorCode: goaway.error_code,
                lastStreamID: goaway.last_stream_id,
                debugData: debugData ?? []
            )
        case .windowUpdate:
            return .windowUpdate(increment: frame.pointee.window_update.window_size_increment)
        case .ping:
            return .ping(opaqueData: withUnsafeBytes(of: frame.pointee.ping.opaque_data) { Array($0) })
        default:
            return .empty
        }
    }

    private static func decode(_ list: UnsafeMutablePointer<nghttp2_nv>?, count: Int) -> [HTTPHeader] {
        guard let list, count > 0 else { return [] }
        return UnsafeBufferPointer(start: list, count: count).map { field in
            HTTPHeader(
                name: HTTPHeader.string(field.name, field.namelen),
                value: HTTPHeader.string(field.value, field.valuelen)
            )
        }
    }
}

extension HTTPHeader {
    /// A string from `count` bytes that nghttp2 lent for the duration of a callback. Bytes
    /// that are not UTF-8 are written `\xHH`, so a record shows the bytes sent rather than
    /// U+FFFD (HTTP/2 allows any octet but NUL, CR and LF in a value).
    static func string(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> String {
        guard let bytes, count > 0 else { return "" }
        return text(UnsafeBufferPointer(start: bytes, count: count))
    }

    static func string(_ bytes: UnsafeMutablePointer<UInt8>?, _ count: Int) -> String {
        string(UnsafePointer(bytes), count)
    }

    /// `value` in double quotes for a message, every control character written `\u{HH}`, so a
    /// NUL or a line break shows where it stands instead of ending or breaking the text.
    static func quoted(_ value: String) -> String {
        var text = "\""
        for scalar in value.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
