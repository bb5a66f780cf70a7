import MockAPNsWire
internal import CNghttp2
internal import CMemoryPool
import NIOCore

/// What a session reports while nghttp2 runs its callbacks. Implemented by the channel
/// handler, which owns the session.
protocol NGHTTP2SessionListener: AnyObject {
    func session(didReceive request: HTTP2Request)
    func session(didRecord frame: HTTP2FrameRecord)
    func session(didCloseStream streamID: Int32, errorCode: UInt32)
    func session(didFailStream error: HTTP2StreamError)
    func session(didRefuseStream refused: HTTP2RefusedStream)
    func session(didRefuse refusal: HTTP2RequestRefusal)
    func session(didIgnoreStream streamID: Int32, afterGoAwayNaming lastStreamID: Int32)
}

/// One nghttp2 server session: the only place that holds an `nghttp2_session *`.
///
/// Bytes go in with ``receive(_:)``; nghttp2 calls back per frame and per header field, and
/// the session assembles requests and hands them to its listener. Bytes to send come out of
/// ``drainOutput(_:)``. nghttp2 gets `self` as its `user_data` without a retain: the session
/// owns the `nghttp2_session`, deletes it in ``close()`` (or at the latest in `deinit`), and
/// nghttp2 only calls back from inside the session's own calls.
///
/// Its stored properties skip Swift's run-time exclusivity checks (about 1% of a request's
/// CPU, mostly in nghttp2's per-header callback): the session lives on one event loop, and
/// the test suite, run with the checks on before they were marked, found no overlapping access.
final class NGHTTP2Session {
    @exclusivity(unchecked) private var session: OpaquePointer?
    /// Where the session's own allocations come from: the blocks of finished streams are
    /// handed to the next ones instead of going back to the system allocator (about ten
    /// allocations per request). Freed after the session.
    private let memoryPool: OpaquePointer
    private let configuration: HTTP2ServerConfiguration
    private let allocator: ByteBufferAllocator
    private unowned let listener: any NGHTTP2SessionListener
    @exclusivity(unchecked) private var streams = StreamTable()
    @exclusivity(unchecked) private var headerEncoder = HeaderListEncoder()
    /// Shared by every request without a body, so those cost no buffer allocation.

    /// The highest stream ID the client has opened; a HEADERS above it opens a new stream.
    @exclusivity(unchecked) private var highestClientStreamID: Int32 = 0
    /// The highest stream ID of any HEADERS the client sent, accepted by nghttp2 or not.
    @exclusivity(unchecked) private var highestHeadersStreamID: Int32 = 0
    /// Client stream IDs jumped over when a HEADERS opened a higher one, most recent last:
    /// these can never be opened (RFC 9113, section 5.1.1). Only the latest
    /// `maximumSkippedRanges` are kept, so a client skipping again and again costs nothing.
    @exclusivity(unchecked) private var skippedClientStreamIDs: [ClosedRange<Int32>] = []
    private static let maximumSkippedRanges = 64
    /// GOAWAY frames submitted through this type and not yet sent. Any other GOAWAY with an
    /// error code is nghttp2 ending the connection over a protocol error.
    @exclusivity(unchecked) private var applicationGoAwaysQueued = 0
    /// The lowest last-stream ID of the GOAWAY frames sent: nghttp2 ignores any stream the
    /// client opens above it, which the listener hears of (a client that ignores GOAWAY).
    @exclusivity(unchecked) private var goAwayLastStreamID: Int32?
    /// The error code of the client's GOAWAY, when it came before any GOAWAY of the server's
    /// went out: the client ended the connection, and the close that follows is its doing.
    @exclusivity(unchecked) private(set) var clientGoAwayFirst: UInt32?
    /// Reads the frames nghttp2 drops unseen once it stops reading after that GOAWAY.
    @exclusivity(unchecked) private var ignoredInput: IgnoredFrameWalker?
    /// The last message nghttp2's error callback gave, to explain the error that follows.
    @exclusivity(unchecked) private var lastLibraryMessage: String?
    /// Streams the application reset; any other RST_STREAM is nghttp2 refusing what the
    /// client sent, and is reported as a stream error.
    @exclusivity(unchecked) private var applicationResets: Set<Int32> = []
    /// Why nghttp2 found a client stream's frame invalid, kept until its RST_STREAM is sent.
    @exclusivity(unchecked) private var streamErrorReasons: [Int32: String] = [:]

    /// Decodes header blocks beside nghttp2 while streams can be refused, so refused
    /// streams can be reported with their headers (see `HeaderBlockShadow`).
    @exclusivity(unchecked) private var shadow: HeaderBlockShadow?
    /// Streams refused during the current read, waiting for their header block.
    @exclusivity(unchecked) private var refusals: [Int32: (record: HTTP2FrameRecord?, refused: HTTP2RefusedStream)] = [:]
    /// SETTINGS frames sent and not yet acknowledged, and the last MAX_CONCURRENT_STREAMS sent.
    @exclusivity(unchecked) private var settingsAwaitingAck = 0
    @exclusivity(unchecked) private var announcedStreamLimit: UInt32 = 0

    /// The head of the last request handed over: the next request's head starts on its
    /// storage, which it keeps while its fields repeat that one's (`RequestHead.recycled()`).
    @exclusivity(unchecked) private var previousHead = RequestHead()
    /// The last request header list recorded, whose strings the next record's equal fields
    /// share (the whole list, when every field repeats).
    @exclusivity(unchecked) private var previousRecordedHeaders: [HTTPHeader] = []
    /// The head those fields came from: a head on its storage with as many fields has them
    /// all, without comparing them one by one.
    @exclusivity(unchecked) private var previousRecordedHead = RequestHead()

    /// Set once the client has broken the connection; nothing more is read after it.
    @exclusivity(unchecked) private(set) var connectionError: HTTP2ConnectionError?

    /// Creates the nghttp2 server session and queues the initial SETTINGS.
    init(
        configuration: HTTP2ServerConfiguration,
        allocator: ByteBufferAllocator,
        listener: any NGHTTP2SessionListener
    ) throws {
        self.configuration = configuration
        self.allocator = allocator
        self.listener = listener

        guard let pool = mockapns_memory_pool_create() else { throw NGHTTP2SessionError.outOfMemory }
        self.memoryPool = pool
        guard let callbacks = NGHTTP2Callbacks.make() else {
            mockapns_memory_pool_destroy(pool)
            throw NGHTTP2SessionError.outOfMemory
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        // nghttp2 copies the allocator into the session.
        var memory = nghttp2_mem(
            mem_user_data: UnsafeMutableRawPointer(pool),
            malloc: mockapns_memory_pool_malloc, free: mockapns_memory_pool_free,
            calloc: mockapns_memory_pool_calloc, realloc: mockapns_memory_pool_realloc
        )
        var session: OpaquePointer?
        let rv = nghttp2_session_server_new3(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), nil, &memory)
        guard rv == 0, let session else {
            mockapns_memory_pool_destroy(pool)
            throw NGHTTP2SessionError.library(code: rv)
        }
        self.session = session
        if configuration.decodesRefusedStreamHeaders {
            shadow = HeaderBlockShadow(tableSize: configuration.headerTableSize)
        }

        try submitSettings([
            HTTP2Setting(identifier: HTTP2Setting.headerTableSize, value: configuration.headerTableSize),
            HTTP2Setting(identifier: HTTP2Setting.maxConcurrentStreams, value: configuration.maxConcurrentStreams),
            HTTP2Setting(identifier: HTTP2Setting.initialWindowSize, value: configuration.initialWindowSize),
            HTTP2Setting(identifier: HTTP2Setting.maxFrameSize, value: configuration.maxFrameSize),
            HTTP2Setting(identifier: HTTP2Setting.maxHeaderListSize, value: configuration.maxHeaderListSize),
        ])
    }

    deinit {
        close()
        mockapns_memory_pool_destroy(memoryPool)
    }

    /// Deletes the nghttp2 session. Every later call is a no-op.
    func close() {
        if let session {
            nghttp2_session_del(session)
        }
        session = nil
        streams.removeAll()
        shadow?.close()
        shadow = nil
    }

    /// Streams the client has opened and that have not closed yet.
    var openStreamCount: Int { streams.count }

    /// What the session keeps per stream now, for tests that it keeps nothing per past stream.
    var streamStateCounts: HTTP2StreamStateCounts {
        HTTP2StreamStateCounts(
            openStreams: streams.count, errorReasons: streamErrorReasons.count, applicationResets: applicationResets.count,
            refusalsAwaitingHeaders: refusals.count
        )
    }

    /// How many blocks the session's memory pool took from the system allocator so far, and
    /// how many the session holds now.
    var memoryPoolUse: NGHTTP2MemoryPoolUse {
        NGHTTP2MemoryPoolUse(
            systemAllocations: mockapns_memory_pool_system_allocations(memoryPool),
            outstanding: mockapns_memory_pool_outstanding(memoryPool),
            keptBytes: Int(mockapns_memory_pool_kept_bytes(memoryPool))
        )
    }

    /// nghttp2 has nothing to read or write any more: a GOAWAY went out (or came in) and
    /// every stream is done. Time to close.
    var isFinished: Bool {
        guard let session else { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    // MARK: - Input and output

    /// Feeds received bytes to nghttp2 with one `nghttp2_session_mem_recv` call.
    /// Returns the connection error if these bytes broke the connection.
    @discardableResult
    func receive(_ buffer: ByteBuffer) -> HTTP2ConnectionError? {
        guard let session, connectionError == nil else { return connectionError }
        if let last = goAwayLastStreamID, nghttp2_session_want_read(session) == 0 {
            reportStreamsAfterGoAway(buffer, last: last)
        }
        let result = buffer.withUnsafeReadableBytes { bytes -> Int in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return nghttp2_session_mem_recv(session, base, bytes.count)
        }
        if result < 0 {
            failAfterFatalReceiveError(code: Int32(truncatingIfNeeded: result), received: buffer)
        }
        if shadow != nil {
            readHeaderBlocksAgain(buffer)
        }
        return connectionError
    }

    /// Streams opened in bytes nghttp2 will drop unread (it stopped reading after the GOAWAY).
    private func reportStreamsAfterGoAway(_ buffer: ByteBuffer, last: Int32) {
        var walker = ignoredInput ?? IgnoredFrameWalker()
        buffer.withUnsafeReadableBytes { bytes in
            walker.walk(bytes) { type, streamID in
                guard type == UInt8(NGHTTP2_HEADERS.rawValue), streamID & 1 == 1, streamID > highestHeadersStreamID else { return }
                highestHeadersStreamID = streamID
                listener.session(didIgnoreStream: streamID, afterGoAwayNaming: last)
            }
        }
        ignoredInput = walker
    }

    /// Feeds the same bytes to the shadow decoder, reports the streams refused in them with
    /// their headers, and retires the shadow once refusals can no longer happen.
    private func readHeaderBlocksAgain(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { bytes in
            shadow?.feed(bytes) { streamID, headers in
                if let refusal = refusals.removeValue(forKey: streamID) { report(refusal, headers: headers) }
            }
        }
        if shadow?.failed == true {
            shadow?.close()
            shadow = nil
        }
        // A raised limit the client acknowledged: no stream can be refused for the limit now.
        if settingsAwaitingAck == 0, announcedStreamLimit > 1, refusals.isEmpty {
            shadow?.close()
            shadow = nil
        }
        if shadow == nil {
            for (_, refusal) in refusals.sorted(by: { $0.key < $1.key }) { report(refusal, headers: nil) }
            refusals = [:]
        }
    }

    private func report(_ refusal: (record: HTTP2FrameRecord?, refused: HTTP2RefusedStream), headers: [HTTPHeader]?) {
        if var record = refusal.record {
            if let headers { record.details = .headers(headers) }
            listener.session(didRecord: record)
        }
        var refused = refusal.refused
        refused.headers = headers
        listener.session(didRefuseStream: refused)
    }

    /// Hands the bytes nghttp2 wants to send to `write`, chunk by chunk, until it has nothing
    /// more or `limit` bytes have gone out. Callbacks may submit more frames meanwhile; they go
    /// out in the same run. Returns `true` when it stopped at the limit (more may be waiting).
    @discardableResult
    func drainOutput(limit: Int = .max, _ write: (UnsafeRawBufferPointer) -> Void) -> Bool {
        var written = 0
        while let session {
            if written >= limit { return true }
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 {
                // Only out-of-memory and callback failures land here; neither leaves anything
                // sensible to send.
                fail(.init(kind: .internalFailure, errorCode: HTTP2ErrorCode.internalError,
                           message: "nghttp2 could not serialize frames: \(Self.describe(Int32(truncatingIfNeeded: length)))"))
                return false
            }
            guard length > 0, let chunk else { return false }
            write(UnsafeRawBufferPointer(start: chunk, count: length))
            written += length
        }
        return false
    }

    // MARK: - Submitting frames

    /// Queues a response: HEADERS, then the body as DATA frames if it is not empty.
    /// Returns false when the stream is gone (the client reset it), already has a response,
    /// or nghttp2 refused.
    func submitResponse(_ head: ResponseHead, streamID: Int32, body: ByteBuffer?) -> Bool {
        guard let session else { return false }
        let body = body.flatMap { $0.readableBytes > 0 ? $0 : nil }
        let accepted = streams.update(streamID) { stream -> Bool in
            guard !stream.responded else { return false }
            stream.responded = true
            stream.responseBody = body
            // The HEADERS frame's record will show this list as sent: the names go out
            // lower-cased, so a list with an upper-case name is decoded from the frame instead.
            if configuration.recordsFrames, head.headers.allSatisfy({ $0.name.utf8.allSatisfy { $0 &- 0x41 >= 26 } }) {
                stream.submittedResponse = head
            }
            return true
        }
        guard accepted == true else { return false }
        let rv = headerEncoder.withHeaderList(response: head) { list, count in
            guard body != nil else {
                return nghttp2_submit_response(session, streamID, list, count, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: { session, streamID, buffer, length, flags, _, userData in
                    NGHTTP2Session.from(userData)?.readResponseBody(streamID, buffer, length, flags)
                        ?? Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
                }
            )
            return nghttp2_submit_response(session, streamID, list, count, &provider)
        }
        return rv == 0
    }

    /// Queues RST_STREAM for `streamID`.
    func submitReset(streamID: Int32, errorCode: UInt32) -> Bool {
        guard let session,
              nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode) == 0
        else { return false }
        applicationResets.insert(streamID)
        return true
    }

    /// Queues a GOAWAY. nghttp2 refuses streams above `lastStreamID` once it is sent.
    func submitGoAway(errorCode: UInt32, lastStreamID: Int32?, debugData: [UInt8]) -> Bool {
        guard let session else { return false }
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        let rv = debugData.withUnsafeBufferPointer {
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, $0.baseAddress, $0.count)
        }
        if rv == 0 { applicationGoAwaysQueued += 1 }
        return rv == 0
    }

    /// Queues a SETTINGS frame carrying `settings`.
    func submitSettings(_ settings: [HTTP2Setting]) throws {
        guard let session else { return }
        let entries = settings.map {
            nghttp2_settings_entry(settings_id: Int32($0.identifier), value: $0.value)
        }
        let rv = entries.withUnsafeBufferPointer {
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress, $0.count)
        }
        guard rv == 0 else { throw NGHTTP2SessionError.library(code: rv) }
        settingsAwaitingAck += 1
        if let limit = settings.last(where: { $0.identifier == HTTP2Setting.maxConcurrentStreams }) {
            announcedStreamLimit = limit.value
        }
    }

    // MARK: - Connection errors

    private func fail(_ error: HTTP2ConnectionError) {
        if connectionError == nil {
            connectionError = error
        }
    }

    /// `nghttp2_session_mem_recv` gave up. nghttp2 does not queue a GOAWAY for these
    /// errors itself, so one is queued here (unless the application already queued its own).
    private func failAfterFatalReceiveError(code: Int32, received: ByteBuffer) {
        // A callback may have stopped the session on purpose, its own GOAWAY already queued.
        guard connectionError == nil else { return }
        let error: HTTP2ConnectionError
        switch code {
        case NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue:
            error = .init(
                kind: .badPreface, errorCode: HTTP2ErrorCode.protocolError,
                message: "the client did not start with the HTTP/2 connection preface; it sent \(Self.preview(received))"
            )
        case NGHTTP2_ERR_FLOODED.rawValue:
            error = .init(
                kind: .flooded, errorCode: HTTP2ErrorCode.enhanceYourCalm,
                message: "the client sent more frames needing an answer (PING, SETTINGS, RST_STREAM) than it reads answers"
            )
        case NGHTTP2_ERR_CALLBACK_FAILURE.rawValue:
            error = .init(
                kind: .internalFailure, errorCode: HTTP2ErrorCode.internalError,
                message: "a frame callback failed: \(lastLibraryMessage ?? Self.describe(code))"
            )
        case NGHTTP2_ERR_NOMEM.rawValue:
            error = .init(kind: .internalFailure, errorCode: HTTP2ErrorCode.internalError, message: "nghttp2 ran out of memory")
        default:
            error = .init(
                kind: .protocolViolation, errorCode: HTTP2ErrorCode.protocolError,
                message: lastLibraryMessage ?? Self.describe(code)
            )
        }
        fail(error)
        if let session {
            nghttp2_session_terminate_session(session, error.errorCode)
        }
    }

    /// The first bytes a client sent instead of the preface, quoted when they are text
    /// (an HTTP/1.1 request) and in hex otherwise (a TLS ClientHello, say).
    private static func preview(_ buffer: ByteBuffer) -> String {
        let bytes = buffer.readableBytesView.prefix(16)
        if bytes.starts(with: [0x16, 0x03]) {
            return "a TLS handshake record (TLS on a cleartext port?)"
        }
        var text = "\""
        for byte in bytes {
            switch byte {
            case 0x0d: text += "\\r"
            case 0x0a: text += "\\n"
            case 0x20..<0x7f: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                return bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
            }
        }
        return text + "\""
    }

    /// Why nghttp2 sends GOAWAY with `errorCode`, for when it gives no debug data.
    private static func explain(_ errorCode: UInt32) -> String {
        switch errorCode {
        case HTTP2ErrorCode.frameSizeError: "the client sent a frame with an invalid length"
        // nghttp2 decodes no header name or value whose encoded length is over 65,536 bytes
        // (NGHTTP2_HD_MAX_NV, fixed in the library); the HPACK state is then lost, so such a
        // request ends the connection rather than being answered 431.
        case HTTP2ErrorCode.compressionError:
            "the client's header block could not be decoded (HPACK): it is malformed, or a header name or value in it is longer than "
                + "65,536 bytes as encoded (after Huffman coding), the most nghttp2 decodes; a shorter header list over "
                + "MAX_HEADER_LIST_SIZE is answered 431 instead"
        case HTTP2ErrorCode.flowControlError: "the client sent more data than its flow-control window allows"
        case HTTP2ErrorCode.settingsTimeout: "the client did not acknowledge the server's SETTINGS in time"
        default: "the client broke the HTTP/2 protocol"
        }
    }

    static func describe(_ code: Int32) -> String {
        guard let text = nghttp2_strerror(code) else { return "nghttp2 error \(code)" }
        return String(cString: text)
    }

    static func from(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2Session? {
        guard let userData else { return nil }
        return Unmanaged<NGHTTP2Session>.fromOpaque(userData).takeUnretainedValue()
    }

    // MARK: - Callbacks from nghttp2 (see NGHTTP2Callbacks)

    /// Every frame header, before nghttp2 looks at the frame. nghttp2 ignores a HEADERS whose
    /// stream ID is below one the client already used (it cannot tell a new stream from
    /// late trailers); RFC 9113, section 5.1.1 makes a new stream there a connection error
    /// PROTOCOL_ERROR. An ID the client jumped over is known never to have been opened, so
    /// HEADERS on it is that error.
    func onBeginFrame(_ header: UnsafePointer<nghttp2_frame_hd>) -> Int32 {
        let streamID = header.pointee.stream_id
        guard header.pointee.type == UInt8(NGHTTP2_HEADERS.rawValue), streamID & 1 == 1 else { return 0 }
        if streamID > highestHeadersStreamID, let last = goAwayLastStreamID, streamID > last {
            listener.session(didIgnoreStream: streamID, afterGoAwayNaming: last)
        }
        if streamID > highestHeadersStreamID {
            if streamID - highestHeadersStreamID > 2 {
                skippedClientStreamIDs.append((highestHeadersStreamID + 1)...(streamID - 2))
                if skippedClientStreamIDs.count > Self.maximumSkippedRanges {
                    skippedClientStreamIDs.removeFirst()
                }
            }
            highestHeadersStreamID = streamID
            return 0
        }
        guard skippedClientStreamIDs.contains(where: { $0.contains(streamID) }) else { return 0 }
        let message = "HEADERS opened stream \(streamID) after stream \(highestHeadersStreamID); stream IDs must increase"
        guard submitGoAway(errorCode: HTTP2ErrorCode.protocolError, lastStreamID: nil, debugData: Array(message.utf8)) else {
            return 0
        }
        fail(.init(kind: .protocolViolation, errorCode: HTTP2ErrorCode.protocolError, message: message))
        // Stop nghttp2 here; the GOAWAY above goes out with the next write.
        return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
    }

    func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        if frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
            streams.open(header.stream_id, head: previousHead.recycled())
            highestClientStreamID = max(highestClientStreamID, header.stream_id)
        } else {
            // Trailers: a new header block on a known stream.
            streams.update(header.stream_id) {
                $0.headerBlockStart = $0.head.count
                $0.headerListSize = 0
            }
        }
        return 0
    }

    func onHeader(
        _ frame: UnsafePointer<nghttp2_frame>,
        name: UnsafePointer<UInt8>?, nameLength: Int,
        value: UnsafePointer<UInt8>?, valueLength: Int
    ) -> Int32 {
        let streamID = frame.pointee.hd.stream_id
        let limit = Int(configuration.maxHeaderListSize)
        let withinLimit = streams.update(streamID) { stream -> Bool in
            stream.headerListSize += nameLength + valueLength + 32
            guard stream.headerListSize <= limit else {
                stream.headerListOverflowed = true
                return false
            }
            // The bytes as decoded; a string is made only where a reader needs one.
            stream.head.append(name: UnsafeBufferPointer(start: name, count: nameLength),
                               value: UnsafeBufferPointer(start: value, count: valueLength))
            return true
        }
        guard withinLimit == false, let session else { return 0 }
        switch configuration.headerListOverflow {
        case .answer431:
            // Keep decoding (the HPACK state must stay in step) but keep nothing more; the
            // block's end answers 431.
            return 0
        case .resetStream:
            break
        }
        // Keep the promise made in SETTINGS: without it a client could grow one header list
        // (CONTINUATION after CONTINUATION) until memory runs out.
        streamErrorReasons[streamID] =
            "the client's header list is over the MAX_HEADER_LIST_SIZE of \(limit) bytes the server announced"
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, HTTP2ErrorCode.protocolError)
        // nghttp2 skips the rest of this header block and resets the stream.
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    }

    /// A regular header field whose value HTTP/2 forbids (a NUL, CR or LF, or white space at
    /// either end; RFC 9113, section 8.2.1). The stream is reset, as nghttp2 does without this
    /// callback; the field is kept with the request's others, exactly as sent, and the reason
    /// quotes its value whole (nghttp2's own message stops at a NUL).
    func onInvalidHeader(
        _ frame: UnsafePointer<nghttp2_frame>,
        name: UnsafePointer<UInt8>?, nameLength: Int,
        value: UnsafePointer<UInt8>?, valueLength: Int
    ) -> Int32 {
        let streamID = frame.pointee.hd.stream_id
        let field = HTTPHeader(name: HTTPHeader.string(name, nameLength), value: HTTPHeader.string(value, valueLength))
        streams.update(streamID) {
            $0.head.append(name: UnsafeBufferPointer(start: name, count: nameLength),
                           value: UnsafeBufferPointer(start: value, count: valueLength))
        }
        streamErrorReasons[streamID] = "the header field \(field.name) has a value HTTP/2 forbids (no NUL, CR or LF, and "
            + "no white space at either end; RFC 9113, section 8.2.1): \(HTTPHeader.quoted(field.value))"
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    }

    func onDataChunk(streamID: Int32, data: UnsafePointer<UInt8>?, length: Int) -> Int32 {
        let limit = configuration.maxBodyBytesStored
        streams.update(streamID) { stream in
            stream.bodyLength += length
            let keep = min(length, limit - stream.body.count)
            guard keep > 0, let data else { return }
            if stream.body.capacity == 0 {
                // One allocation for a typical body: the first chunk is usually all of it.
                stream.body.reserveCapacity(min(limit, max(keep, 1024)))
            }
            stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: keep))
        }
        return 0
    }

    func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        let isHeaders = header.type == UInt8(NGHTTP2_HEADERS.rawValue)
        if header.type == UInt8(NGHTTP2_SETTINGS.rawValue), header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0,
           settingsAwaitingAck > 0 {
            settingsAwaitingAck -= 1
        }
        if configuration.recordsFrames {
            // Inbound header fields reached the header callback, not the frame: take this
            // block's fields from the stream's head (trailers are the part after the request's
            // own block). A request's fields that repeat the last recorded request's share its
            // strings, and its whole list when all do.
            let block = isHeaders
                ? streams.update(header.stream_id) { stream -> [HTTPHeader] in
                    guard stream.headerBlockStart == 0 else { return stream.head.fields(from: stream.headerBlockStart) }
                    if stream.head.hasFields(of: previousRecordedHead) { return previousRecordedHeaders }
                    previousRecordedHeaders = stream.head.fields(from: 0, reusing: previousRecordedHeaders)
                    previousRecordedHead = stream.head
                    return previousRecordedHeaders
                } ?? []
                : nil
            listener.session(didRecord: FrameRecordBuilder.record(of: frame, direction: .inbound, headers: block))
        }
        if header.type == UInt8(NGHTTP2_GOAWAY.rawValue), goAwayLastStreamID == nil, clientGoAwayFirst == nil {
            clientGoAwayFirst = frame.pointee.goaway.error_code
        }
        if isHeaders, streams.update(header.stream_id, { $0.headerListOverflowed }) == true {
            answerOversizedHeaderList(on: header.stream_id)
        }
        let endsStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        if endsStream && (isHeaders || header.type == UInt8(NGHTTP2_DATA.rawValue)) {
            deliverRequest(on: header.stream_id)
        }
        return 0
    }

    /// Answers 431 to a request whose header list passed MAX_HEADER_LIST_SIZE, once its
    /// header block has ended; the request is never delivered.
    private func answerOversizedHeaderList(on streamID: Int32) {
        let kept = streams.update(streamID) { stream -> (size: Int, headers: [HTTPHeader])? in
            guard !stream.responded else { return nil }
            defer { stream.head = RequestHead() }
            return (stream.headerListSize, stream.head.fields)
        }
        guard case let (size, headers)? = kept ?? nil else { return }
        guard submitResponse(ResponseHead(status: 431, headers: []), streamID: streamID, body: nil) else { return }
        listener.session(didRefuse: HTTP2RequestRefusal(
            streamID: streamID, status: 431, headers: headers,
            message: "the client's header list is \(size) bytes, over the MAX_HEADER_LIST_SIZE of \(configuration.maxHeaderListSize) bytes the server announced"
        ))
    }

    /// Moves the assembled request out of the stream state (no copy) and hands it over.
    private func deliverRequest(on streamID: Int32) {
        let request = streams.update(streamID) { stream -> HTTP2Request? in
            guard !stream.headerListOverflowed else { return nil }
            let request = HTTP2Request(
                streamID: streamID,
                head: stream.head,
                body: stream.body,
                bodyLength: stream.bodyLength
            )
            stream.head = RequestHead()
            stream.body = []
            return request
        }
        if let request = request ?? nil { previousHead = request.head }
        if let request = request ?? nil {
            listener.session(didReceive: request)
        }
    }

    func onInvalidFrame(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) -> Int32 {
        let streamID = frame.pointee.hd.stream_id
        if libraryError == NGHTTP2_ERR_REFUSED_STREAM.rawValue, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
            // Refused before its header block was read: its record waits for the block,
            // decoded beside nghttp2 after this read (nghttp2 gives its fields to no callback).
            let refused = HTTP2RefusedStream(
                streamID: streamID, headers: nil, openStreams: streams.count, announcedLimit: announcedStreamLimit,
                errorCode: HTTP2ErrorCode.refusedStream
            )
            let record = configuration.recordsFrames ? FrameRecordBuilder.record(of: frame, direction: .inbound) : nil
            streamErrorReasons[streamID] = refused.reason + ". " + refused.meaning
            lastLibraryMessage = nil
            if shadow == nil {
                report((record, refused), headers: nil)
            } else {
                refusals[streamID] = (record, refused)
            }
            return 0
        }
        if configuration.recordsFrames {
            listener.session(didRecord: FrameRecordBuilder.record(of: frame, direction: .inbound))
        }
        if isStreamLimitViolation(frame, libraryError: libraryError),
           configuration.streamLimitViolation == .goAway,
           let session
        {
            let limit = nghttp2_session_get_local_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            guard submitGoAway(
                errorCode: HTTP2ErrorCode.refusedStream,
                lastStreamID: nil,
                debugData: configuration.goAwayDebugData.streamLimit
            ) else { return 0 }
            fail(.init(
                kind: .streamLimitExceeded, errorCode: HTTP2ErrorCode.refusedStream,
                message: "the client opened stream \(frame.pointee.hd.stream_id) while \(streams.count) streams were open; MAX_CONCURRENT_STREAMS is \(limit)"
            ))
            // Stop nghttp2 here, before it queues its own PROTOCOL_ERROR GOAWAY.
            return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
        }
        // nghttp2 resets the stream next (or ends the connection, which reports itself).
        // Its error callback, if it said anything, spoke just before this one.
        if streamID != 0 {
            // A reason found earlier in this frame (an invalid field, quoted whole) is the precise one.
            streamErrorReasons[streamID] = streamErrorReasons[streamID] ?? lastLibraryMessage ?? Self.describe(libraryError)
        }
        lastLibraryMessage = nil
        return 0
    }

    /// nghttp2 rejects a HEADERS that opens a stream beyond an acknowledged
    /// MAX_CONCURRENT_STREAMS as a connection error. It refuses one beyond a limit not yet
    /// acknowledged with RST_STREAM (lib error REFUSED_STREAM), which is left alone.
    private func isStreamLimitViolation(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) -> Bool {
        guard let session else { return false }
        let header = frame.pointee.hd
        return header.type == UInt8(NGHTTP2_HEADERS.rawValue)
            && libraryError != NGHTTP2_ERR_REFUSED_STREAM.rawValue
            && header.stream_id > highestClientStreamID
            && header.stream_id & 1 == 1
            && streams.count >= Int(nghttp2_session_get_local_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if configuration.recordsFrames {
            let response = frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
                ? streams.update(frame.pointee.hd.stream_id, { $0.submittedResponse }) ?? nil
                : nil
            listener.session(didRecord: FrameRecordBuilder.record(of: frame, direction: .outbound, response: response))
        }
        if frame.pointee.hd.type == UInt8(NGHTTP2_RST_STREAM.rawValue) {
            reportResetUnlessRequested(streamID: frame.pointee.hd.stream_id, errorCode: frame.pointee.rst_stream.error_code)
        }
        if frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            goAwayLastStreamID = min(goAwayLastStreamID ?? .max, frame.pointee.goaway.last_stream_id)
            if applicationGoAwaysQueued > 0 {
                applicationGoAwaysQueued -= 1
            } else if frame.pointee.goaway.error_code != HTTP2ErrorCode.noError {
                // nghttp2 ended the connection over something the client did. Its GOAWAY
                // debug data names the problem ("DATA: flow control window exceeded").
                let goaway = frame.pointee.goaway
                let debug = HTTPHeader.string(goaway.opaque_data, goaway.opaque_data_len)
                fail(.init(
                    kind: .protocolViolation, errorCode: goaway.error_code,
                    message: debug.isEmpty ? (lastLibraryMessage ?? Self.explain(goaway.error_code)) : debug
                ))
            }
        }
        return 0
    }

    private func reportResetUnlessRequested(streamID: Int32, errorCode: UInt32) {
        let reason = streamErrorReasons.removeValue(forKey: streamID)
        guard applicationResets.remove(streamID) == nil else { return }
        // The request's fields as far as they came, unless it was already handed over.
        let headers = streams.update(streamID) { stream -> [HTTPHeader]? in
            guard stream.head.count > 0 else { return nil }
            defer { stream.head = RequestHead() }
            return stream.head.fields
        } ?? nil
        listener.session(didFailStream: HTTP2StreamError(
            streamID: streamID, errorCode: errorCode, message: reason ?? Self.explainReset(errorCode), headers: headers
        ))
    }

    /// Why nghttp2 resets a client stream with `errorCode`, for when it said nothing more.
    private static func explainReset(_ errorCode: UInt32) -> String {
        switch errorCode {
        case HTTP2ErrorCode.refusedStream:
            "the client opened a stream beyond MAX_CONCURRENT_STREAMS before acknowledging the lowered limit"
        case HTTP2ErrorCode.flowControlError: "the client sent more data than the stream's flow-control window allows"
        case HTTP2ErrorCode.streamClosed: "the client sent frames on a stream that was already closed"
        case HTTP2ErrorCode.protocolError: "the client sent a malformed request on this stream"
        default: "nghttp2 reset the stream"
        }
    }

    func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        // nghttp2 sends a stream's RST_STREAM before closing it, so a reason still kept
        // here belongs to a stream that was never reset.
        if !streamErrorReasons.isEmpty {
            streamErrorReasons.removeValue(forKey: streamID)
        }
        if streams.close(streamID) != nil {
            listener.session(didCloseStream: streamID, errorCode: errorCode)
        }
        return 0
    }

    func onLibraryError(message: UnsafePointer<CChar>?, length: Int) -> Int32 {
        if let message, length > 0 {
            lastLibraryMessage = message.withMemoryRebound(to: UInt8.self, capacity: length) {
                HTTPHeader.string($0, length)
            }
        }
        return 0
    }

    /// Copies the next part of a stream's response body into nghttp2's frame buffer.
    func readResponseBody(
        _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
        _ flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        let copied = streams.update(streamID) { stream -> Int in
            NGHTTP2BodySource.copy(&stream.responseBody, into: buffer, length: length, flags: flags)
        }
        // The stream vanished: have nghttp2 reset just this stream.
        return copied ?? Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
}

/// Failures creating or configuring an nghttp2 session (not caused by the peer).
enum NGHTTP2SessionError: Error, CustomStringConvertible {
    case outOfMemory
    case library(code: Int32)

    var description: String {
        switch self {
        case .outOfMemory: "nghttp2 ran out of memory"
        case .library(let code): "nghttp2: \(NGHTTP2Session.describe(code))"
        }
    }
}

/// The entries a session keeps per stream, for tests and diagnostics.
package struct HTTP2StreamStateCounts: Equatable, Sendable {
    /// Streams opened and not closed (`StreamTable`).
    package var openStreams: Int
    /// Reasons kept until a stream's RST_STREAM is sent.
    package var errorReasons: Int
    /// Streams the application reset whose RST_STREAM is not sent yet.
    package var applicationResets: Int
    /// Streams refused in the current read, waiting for their header block to be decoded.
    package var refusalsAwaitingHeaders: Int

    package init(openStreams: Int, errorReasons: Int, applicationResets: Int, refusalsAwaitingHeaders: Int) {
        self.openStreams = openStreams
        self.errorReasons = errorReasons
        self.applicationResets = applicationResets
        self.refusalsAwaitingHeaders = refusalsAwaitingHeaders
    }
}

/// What an nghttp2 session's memory pool has done, for tests and diagnostics.
package struct NGHTTP2MemoryPoolUse: Equatable, Sendable {
    /// Blocks taken from the system allocator over the session's life.
    package var systemAllocations: Int
    /// Blocks the session holds now.
    package var outstanding: Int
    /// Bytes of free blocks the pool keeps for the next streams.
    package var keptBytes: Int
}
