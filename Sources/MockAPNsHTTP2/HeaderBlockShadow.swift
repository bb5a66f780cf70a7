import MockAPNsWire
internal import CNghttp2

/// Decodes the client's header blocks a second time, beside nghttp2, so that the headers of
/// a stream nghttp2 refuses can still be told.
///
/// nghttp2 refuses a stream opened beyond a lowered MAX_CONCURRENT_STREAMS the client has
/// not acknowledged yet (RST_STREAM REFUSED_STREAM) without handing its header fields to any
/// callback: it only decodes them to keep HPACK in step. HPACK is one state per connection,
/// so the only way to read a refused block is to decode every block of the connection, in
/// order, with a decoder of our own. This type splits the received bytes into frames (after
/// the 24-byte preface), reassembles HEADERS + CONTINUATION blocks and decodes them with
/// nghttp2's public HPACK inflater. It runs only while refusals can happen (token
/// connections, until the client has acknowledged the raised limit) and is then switched off
/// for good, so ordinary traffic pays nothing.
struct HeaderBlockShadow {
    private var inflater: OpaquePointer?
    /// Bytes of the connection preface still to skip.
    private var prefaceRemaining = 24
    /// The 9-byte header of the frame being read.
    private var frameHeader: [UInt8] = []
    private var payloadRemaining = 0
    private var frameType: UInt8 = 0
    private var frameFlags: UInt8 = 0
    private var frameStream: Int32 = 0
    private var payload: [UInt8] = []
    /// The header block being reassembled (HEADERS, then CONTINUATION frames).
    private var block: [UInt8] = []
    private var blockStream: Int32 = 0
    /// Gave up (a decoding error or a block too large): nothing more is decoded.
    private(set) var failed = false

    /// Blocks larger than this are not reassembled (the server announces 8000 bytes of
    /// header list; a compressed block is smaller).
    static let maximumBlockSize = 64 * 1024

    init(tableSize: UInt32) {
        var inflater: OpaquePointer?
        if nghttp2_hd_inflate_new(&inflater) == 0, let inflater {
            // The client may shrink the table (a size update in a block), never grow it
            // beyond what the server announced; allowing the larger of the two is enough to decode.
            _ = nghttp2_hd_inflate_change_table_size(inflater, Int(max(4096, tableSize)))
            self.inflater = inflater
        } else {
            failed = true
        }
    }

    /// Frees the decoder. Every later call does nothing.
    mutating func close() {
        if let inflater { nghttp2_hd_inflate_del(inflater) }
        inflater = nil
        failed = true
        block = []
        payload = []
    }

    /// Reads `bytes` (what the client sent, in order) and calls `decoded` with the stream
    /// and header fields of every header block completed in them.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, decoded: (Int32, [HTTPHeader]) -> Void) {
        var index = 0
        while index < bytes.count, !failed {
            if prefaceRemaining > 0 {
                let skip = min(prefaceRemaining, bytes.count - index)
                prefaceRemaining -= skip
                index += skip
            } else if frameHeader.count < 9 {
                let take = min(9 - frameHeader.count, bytes.count - index)
                frameHeader += bytes[index..<index + take]
                index += take
                if frameHeader.count == 9 { beginFrame() }
                if frameHeader.count == 9, payloadRemaining == 0 { endFrame(decoded) }
            } else {
                let take = min(payloadRemaining, bytes.count - index)
                if isHeaderFrame { payload += bytes[index..<index + take] }
                payloadRemaining -= take
                index += take
                if payloadRemaining == 0 { endFrame(decoded) }
            }
        }
    }

    private var isHeaderFrame: Bool { frameType == 0x1 || frameType == 0x9 }

    private mutating func beginFrame() {
        payloadRemaining = Int(frameHeader[0]) << 16 | Int(frameHeader[1]) << 8 | Int(frameHeader[2])
        frameType = frameHeader[3]
        frameFlags = frameHeader[4]
        frameStream = Int32(bitPattern: UInt32(frameHeader[5] & 0x7F) << 24 | UInt32(frameHeader[6]) << 16
            | UInt32(frameHeader[7]) << 8 | UInt32(frameHeader[8]))
        payload = []
        if isHeaderFrame, payloadRemaining > Self.maximumBlockSize { close() }
    }

    private mutating func endFrame(_ decoded: (Int32, [HTTPHeader]) -> Void) {
        defer { frameHeader = [] }
        guard isHeaderFrame, !failed else { return }
        var fragment = payload[...]
        if frameType == 0x1 {
            // HEADERS: drop the padding and the priority fields around the block fragment.
            if frameFlags & 0x8 != 0 {
                guard let padLength = fragment.first, fragment.count >= Int(padLength) + 1 else { return close() }
                fragment = fragment.dropFirst().dropLast(Int(padLength))
            }
            if frameFlags & 0x20 != 0 {
                guard fragment.count >= 5 else { return close() }
                fragment = fragment.dropFirst(5)
            }
            block = Array(fragment)
            blockStream = frameStream
        } else {
            block += fragment
        }
        guard block.count <= Self.maximumBlockSize else { return close() }
        // END_HEADERS (0x4) completes the block.
        guard frameFlags & 0x4 != 0 else { return }
        if let headers = decodeBlock() {
            decoded(blockStream, headers)
        }
        block = []
    }

    private mutating func decodeBlock() -> [HTTPHeader]? {
        guard let inflater else { return nil }
        var headers: [HTTPHeader] = []
        let ok = block.withUnsafeBufferPointer { buffer -> Bool in
            guard var input = buffer.baseAddress else {
                return nghttp2_hd_inflate_end_headers(inflater) == 0
            }
            var remaining = buffer.count
            while true {
                var field = nghttp2_nv()
                var flags: Int32 = 0
                let used = nghttp2_hd_inflate_hd2(inflater, &field, &flags, input, remaining, 1)
                guard used >= 0 else { return false }
                input += used
                remaining -= used
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                    headers.append(HTTPHeader(
                        name: HTTPHeader.string(field.name, field.namelen),
                        value: HTTPHeader.string(field.value, field.valuelen)
                    ))
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                    nghttp2_hd_inflate_end_headers(inflater)
                    return true
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) == 0, remaining == 0 { return true }
            }
        }
        guard ok else {
            close()
            return nil
        }
        return headers
    }
}
