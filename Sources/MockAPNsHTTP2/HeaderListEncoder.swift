internal import CNghttp2
import MockAPNsWire

/// Lays out a response's header list as the `nghttp2_nv` array nghttp2 wants, reusing the
/// same buffers for every response on the connection.
///
/// nghttp2 copies names and values when a response is submitted, so the pointers only need
/// to live for the duration of `withHeaderList`.
struct HeaderListEncoder {
    private var bytes: [UInt8] = []
    private var spans: [(nameStart: Int, nameLength: Int, valueStart: Int, valueLength: Int)] = []
    private var entries: [nghttp2_nv] = []
    /// The request list `bytes` and `spans` hold, laid out: the same list sent again (a relay
    /// sends a connection's repeated request as one list) is not laid out again. Held, so its
    /// storage can belong to no other list while it is compared by identity.
    private var laidOutRequest: [HTTPHeader] = []

    init() {
        bytes.reserveCapacity(256)
        spans.reserveCapacity(8)
        entries.reserveCapacity(8)
    }

    /// Calls `body` with a response's fields in the order sent, `:status` first, its ids
    /// written from their values (names lowercased, as HTTP/2 requires).
    mutating func withHeaderList<Result>(
        response: ResponseHead,
        _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result
    ) -> Result {
        laidOutRequest = []
        return withHeaderList(response: response, requestFields: [], laidOut: false, body)
    }

    /// Calls `body` with a request's `fields`: its pseudo-headers (`:method`, `:scheme`,
    /// `:authority`, `:path`) first, in their order, then the regular fields in theirs (HTTP/2
    /// wants no pseudo-header after a regular field; RFC 9113, section 8.3), names lowercased.
    mutating func withHeaderList<Result>(
        fields: [HTTPHeader],
        _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result
    ) -> Result {
        let laidOut = laidOutRequest.count == fields.count && !fields.isEmpty
            && laidOutRequest.withUnsafeBufferPointer { $0.baseAddress } == fields.withUnsafeBufferPointer { $0.baseAddress }
        laidOutRequest = fields
        return withHeaderList(response: nil, requestFields: fields, laidOut: laidOut, body)
    }

    /// A response's list when `response` is given, else the request's `requestFields`;
    /// `laidOut`: `bytes` and `spans` already hold it.
    private mutating func withHeaderList<Result>(
        response: ResponseHead?,
        requestFields headers: [HTTPHeader],
        laidOut: Bool,
        _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result
    ) -> Result {
        // The buffers leave `self` for the duration, so the bytes can stay pinned while the
        // entry list is filled without two overlapping accesses to `self`; they come back
        // with their capacity (the entries emptied; the bytes and spans kept until the next list).
        var bytes = self.bytes
        var spans = self.spans
        var entries = self.entries
        self.bytes = []
        self.spans = []
        self.entries = []
        if !laidOut {
            bytes.removeAll(keepingCapacity: true)
            spans.removeAll(keepingCapacity: true)
        }
        defer {
            entries.removeAll(keepingCapacity: true)
            self.bytes = bytes
            self.spans = spans
            self.entries = entries
        }

        func appendName(_ name: String) -> Int {
            var name = name
            let nameStart = bytes.count
            // Copied whole, then lower-cased where needed (names are nearly always lower case
            // already): not appended byte by byte.
            name.withUTF8 { bytes.append(contentsOf: $0) }
            for index in nameStart..<bytes.count where bytes[index] &- 0x41 < 26 {
                // ASCII upper case to lower case; anything else passes unchanged.
                bytes[index] |= 0x20
            }
            return nameStart
        }
        func append(name: String, value: String) {
            var value = value
            let nameStart = appendName(name)
            let valueStart = bytes.count
            value.withUTF8 { bytes.append(contentsOf: $0) }
            spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }
        func append(name: String, id: MessageID) {
            let nameStart = appendName(name)
            let valueStart = bytes.count
            id.withUTF8 { bytes.append(contentsOf: $0) }
            spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }

        if laidOut {
            // `bytes` and `spans` are this list's, from the last call.
        } else if let response {
            for index in 0..<response.fieldCount {
                switch response.field(at: index) {
                case .text(let name, let value): append(name: name, value: value)
                case .id(let name, let value): append(name: name, id: value)
                }
            }
        } else {
            for header in headers where header.name.utf8.first == UInt8(ascii: ":") {
                append(name: header.name, value: header.value)
            }
            for header in headers where header.name.utf8.first != UInt8(ascii: ":") {
                append(name: header.name, value: header.value)
            }
        }

        return bytes.withUnsafeMutableBufferPointer { storage in
            // Never empty in practice: a response has ":status", a request its pseudo-headers.
            guard let base = storage.baseAddress else { return body(nil, 0) }
            for span in spans {
                entries.append(
                    nghttp2_nv(
                        name: base + span.nameStart,
                        value: base + span.valueStart,
                        namelen: span.nameLength,
                        valuelen: span.valueLength,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                    )
                )
            }
            return entries.withUnsafeBufferPointer { list in body(list.baseAddress, list.count) }
        }
    }
}
