import MockAPNsWire
internal import CNghttp2
import NIOCore

/// What an `NGHTTP2ClientSession` saw. Gathered while nghttp2 runs its callbacks and handed
/// out by `takeEvents()` once the call into nghttp2 has returned: whoever hears of an answer
/// may send the next request at once, and nghttp2 must not be re-entered from a callback.
enum NGHTTP2ClientEvent {
    /// The complete response (its END_STREAM arrived) to the request on `streamID`.
    case response(streamID: Int32, HTTP2ClientResponse)
    /// The request on `streamID` will get no complete response, and why.
    case streamFailed(streamID: Int32, HTTP2ClientError)
    /// The server sent GOAWAY: streams above `lastStreamID` were not processed (each is also
    /// reported as failed), and no new stream may be opened.
    case goAway(lastStreamID: Int32, errorCode: UInt32, debugData: String)
}

/// One nghttp2 client session: the only place that holds a client `nghttp2_session *`.
///
/// Requests go in with ``submitRequest(headers:body:)`` and each gets a stream; nghttp2 calls
/// back per header field, per DATA chunk and per frame, and the session assembles each
/// stream's response (`:status`, the other fields in order, the body up to
/// `maximumResponseBodyBytes`). Bytes go in with ``receive(_:)`` and come out of
/// ``drainOutput(_:)``; what happened comes out of ``takeEvents()``. nghttp2 gets `self` as
/// its `user_data` without a retain: the session owns the `nghttp2_session`, deletes it in
/// ``close()`` (or in `deinit`), and nghttp2 only calls back from inside the session's own calls.
final class NGHTTP2ClientSession {
    private var session: OpaquePointer?
    private var headerEncoder = HeaderListEncoder()
    private let maximumResponseBodyBytes: Int

    /// A stream whose response is still coming.
    private struct Stream {
        var status: Int?
        var headers: [HTTPHeader] = []
        var body: [UInt8] = []
        /// The server sent RST_STREAM on it.
        var resetByServer = false
        /// nghttp2 reset it by itself (the response broke a rule of HTTP/2): its reason.
        var resetByLibrary: String?
    }
    private var streams: [Int32: Stream] = [:]
    /// Request bodies not yet wholly sent.
    private var requestBodies: [Int32: ByteBuffer] = [:]
    /// Streams given up on with ``cancel(streamID:)``: their RST_STREAM is ours, not nghttp2's.
    private var cancelled: Set<Int32> = []
    private var events: [NGHTTP2ClientEvent] = []
    /// Our own GOAWAY frames queued and not yet sent; any other GOAWAY nghttp2 sends with an
    /// error code is it ending the connection over something the server did.
    private var ownGoAwaysQueued = 0
    /// The last message nghttp2's error callback gave, to explain what follows it.
    private var lastLibraryMessage: String?

    /// The server's GOAWAY, once one arrived (the lowest last stream ID of them).
    private(set) var goAway: (lastStreamID: Int32, errorCode: UInt32)?
    /// Set once the server broke the connection (or nghttp2 failed): the connection is over,
    /// and nghttp2's GOAWAY saying so is the last thing to send.
    private(set) var failure: String?
    /// Why the last ``submitRequest(headers:body:)`` returned `nil`.
    private(set) var lastSubmitFailure: String?

    /// Creates the client session and queues its SETTINGS (server push off); the connection
    /// preface goes out with the first ``drainOutput(_:)``.
    init(maximumResponseBodyBytes: Int = 64 * 1024) throws {
        self.maximumResponseBodyBytes = max(0, maximumResponseBodyBytes)
        guard let callbacks = Self.makeCallbacks() else { throw NGHTTP2SessionError.outOfMemory }
        defer { nghttp2_session_callbacks_del(callbacks) }
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw NGHTTP2SessionError.outOfMemory }
        defer { nghttp2_option_del(option) }
        // Until the server's first SETTINGS says how many streams it takes, open one: a server
        // that starts low (Apple's, for connections without a certificate, starts at 1) would
        // refuse the rest of a burst sent before its SETTINGS arrived.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        var session: OpaquePointer?
        let rv = nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard rv == 0, let session else { throw NGHTTP2SessionError.library(code: rv) }
        self.session = session
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        let submitted = settings.withUnsafeMutableBufferPointer {
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress, $0.count)
        }
        guard submitted == 0 else { throw NGHTTP2SessionError.library(code: submitted) }
    }

    deinit {
        close()
    }

    /// Deletes the nghttp2 session. Every later call is a no-op.
    func close() {
        if let session { nghttp2_session_del(session) }
        session = nil
        streams.removeAll()
        requestBodies.removeAll()
    }

    /// nghttp2 has nothing more to read or write: a GOAWAY went either way and every stream
    /// is done, or the session failed and its last frame is out. Time to close.
    var isFinished: Bool {
        guard let session else { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Everything that happened since the last call, in order.
    func takeEvents() -> [NGHTTP2ClientEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: Input and output

    /// Feeds received bytes to nghttp2 with one `nghttp2_session_mem_recv` call.
    func receive(_ buffer: ByteBuffer) {
        guard let session, failure == nil else { return }
        let result = buffer.withUnsafeReadableBytes { bytes -> Int in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return nghttp2_session_mem_recv(session, base, bytes.count)
        }
        if result < 0 {
            let code = Int32(truncatingIfNeeded: result)
            fail(lastLibraryMessage ?? NGHTTP2Session.describe(code), errorCode: HTTP2ErrorCode.protocolError)
        }
    }

    /// Hands the bytes nghttp2 wants to send to `write`, chunk by chunk, until it has none.
    func drainOutput(_ write: (UnsafeRawBufferPointer) -> Void) {
        while let session {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 {
                // Out of memory or a failed callback: nothing sensible is left to send.
                fail("nghttp2 could not serialize frames: \(NGHTTP2Session.describe(Int32(truncatingIfNeeded: length)))", errorCode: nil)
                return
            }
            guard length > 0, let chunk else { return }
            write(UnsafeRawBufferPointer(start: chunk, count: length))
        }
    }

    // MARK: Submitting frames

    /// Queues a request: HEADERS (`headers` holds `:method`, `:scheme`, `:authority` and
    /// `:path`; they go first whatever their place), then the body as DATA frames when there
    /// is one. nghttp2 holds it back while the server's MAX_CONCURRENT_STREAMS is reached.
    /// Returns its stream ID, or `nil` when nghttp2 refused (``lastSubmitFailure`` says why).
    func submitRequest(headers: [HTTPHeader], body: ByteBuffer?) -> Int32? {
        guard let session, failure == nil else {
            lastSubmitFailure = failure ?? "the HTTP/2 session is closed"
            return nil
        }
        let body = body.flatMap { $0.readableBytes > 0 ? $0 : nil }
        let streamID = headerEncoder.withHeaderList(fields: headers) { list, count -> Int32 in
            guard body != nil else {
                return nghttp2_submit_request(session, nil, list, count, nil, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: { _, streamID, buffer, length, flags, _, userData in
                    NGHTTP2ClientSession.from(userData)?.readRequestBody(streamID, buffer, length, flags)
                        ?? Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
                }
            )
            return nghttp2_submit_request(session, nil, list, count, &provider, nil)
        }
        guard streamID > 0 else {
            lastSubmitFailure = NGHTTP2Session.describe(streamID)
            return nil
        }
        streams[streamID] = Stream()
        if let body { requestBodies[streamID] = body }
        return streamID
    }

    /// Gives up on a stream of ours: RST_STREAM CANCEL, and nothing more is reported of it.
    func cancel(streamID: Int32) {
        guard let session, streams.removeValue(forKey: streamID) != nil else { return }
        cancelled.insert(streamID)
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, HTTP2ErrorCode.cancel)
    }

    /// Queues GOAWAY NO_ERROR: this client is leaving.
    func submitGoAway() {
        guard let session else { return }
        let rv = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), HTTP2ErrorCode.noError, nil, 0
        )
        if rv == 0 { ownGoAwaysQueued += 1 }
    }

    /// Marks the session failed and, with `errorCode`, has nghttp2 end it with a GOAWAY.
    private func fail(_ message: String, errorCode: UInt32?) {
        guard failure == nil else { return }
        failure = message
        if let errorCode, let session {
            _ = nghttp2_session_terminate_session(session, errorCode)
        }
    }

    // MARK: Callbacks from nghttp2

    static func from(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2ClientSession? {
        guard let userData else { return nil }
        return Unmanaged<NGHTTP2ClientSession>.fromOpaque(userData).takeUnretainedValue()
    }

    private static func makeCallbacks() -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let session = NGHTTP2ClientSession.from(userData) else { return 0 }
            return session.onHeader(frame, name: name, nameLength: nameLength, value: value, valueLength: valueLength)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            NGHTTP2ClientSession.from(userData)?.onDataChunk(streamID: streamID, data: data, length: length) ?? 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let session = NGHTTP2ClientSession.from(userData) else { return 0 }
            return session.onFrameReceived(frame)
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame, let session = NGHTTP2ClientSession.from(userData) else { return 0 }
            return session.onFrameSent(frame)
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryError, userData in
            guard let frame, let session = NGHTTP2ClientSession.from(userData) else { return 0 }
            return session.onFrameNotSent(frame, libraryError: libraryError)
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, _, libraryError, userData in
            guard let session = NGHTTP2ClientSession.from(userData) else { return 0 }
            // nghttp2 resets the stream (or ends the connection) next; its error callback,
            // if it said anything, spoke just before.
            session.lastLibraryMessage = session.lastLibraryMessage ?? NGHTTP2Session.describe(libraryError)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            NGHTTP2ClientSession.from(userData)?.onStreamClose(streamID: streamID, errorCode: errorCode) ?? 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, userData in
            if let session = NGHTTP2ClientSession.from(userData), let message, length > 0 {
                session.lastLibraryMessage = message.withMemoryRebound(to: UInt8.self, capacity: length) { HTTPHeader.string($0, length) }
            }
            return 0
        }
        return callbacks
    }

    private func onHeader(
        _ frame: UnsafePointer<nghttp2_frame>, name: UnsafePointer<UInt8>?, nameLength: Int,
        value: UnsafePointer<UInt8>?, valueLength: Int
    ) -> Int32 {
        // The stream is found once per field and changed where it is stored: a lookup to find
        // it and another to change it cost a copy of its lists in and out, for every field.
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let index = streams.index(forKey: frame.pointee.hd.stream_id) else { return 0 }
        let fieldName = HTTPHeader.string(name, nameLength)
        let fieldValue = HTTPHeader.string(value, valueLength)
        if fieldName == ":status" {
            // A final status after an informational (1xx) one starts the response afresh.
            streams.values[index].headers.removeAll()
            streams.values[index].status = Int(fieldValue)
        } else if !HTTPHeader.isPseudoField(fieldName) {
            streams.values[index].headers.append(HTTPHeader(name: fieldName, value: fieldValue))
        }
        return 0
    }

    private func onDataChunk(streamID: Int32, data: UnsafePointer<UInt8>?, length: Int) -> Int32 {
        guard let data, let kept = streams[streamID]?.body.count else { return 0 }
        guard length <= maximumResponseBodyBytes - kept else {
            // An answer this long is no APNs answer, and relaying part of it would be inventing
            // one: the stream is given up on.
            streams[streamID] = nil
            cancelled.insert(streamID)
            if let session {
                _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, HTTP2ErrorCode.cancel)
            }
            events.append(.streamFailed(streamID: streamID, .responseTooLarge(limit: maximumResponseBodyBytes)))
            return 0
        }
        if let index = streams.index(forKey: streamID) {
            streams.values[index].body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        }
        return 0
    }

    private func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch header.type {
        case UInt8(NGHTTP2_HEADERS.rawValue), UInt8(NGHTTP2_DATA.rawValue):
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
                complete(streamID: header.stream_id)
            }
        case UInt8(NGHTTP2_RST_STREAM.rawValue):
            streams[header.stream_id]?.resetByServer = true
        case UInt8(NGHTTP2_GOAWAY.rawValue):
            let goaway = frame.pointee.goaway
            let last = min(goAway?.lastStreamID ?? .max, goaway.last_stream_id)
            goAway = (last, goaway.error_code)
            events.append(.goAway(
                lastStreamID: goaway.last_stream_id, errorCode: goaway.error_code,
                debugData: HTTPHeader.string(goaway.opaque_data, goaway.opaque_data_len)
            ))
        default:
            break
        }
        return 0
    }

    /// The response's END_STREAM arrived: it is complete.
    private func complete(streamID: Int32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        guard let status = stream.status, status >= 200 else {
            events.append(.streamFailed(streamID: streamID, .protocolError("the stream ended without a final :status")))
            return
        }
        events.append(.response(streamID: streamID, HTTP2ClientResponse(status: status, headers: stream.headers, body: stream.body)))
    }

    private func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        if header.type == UInt8(NGHTTP2_RST_STREAM.rawValue), !cancelled.contains(header.stream_id) {
            // Not asked for: nghttp2 refused what the server sent on this stream.
            let code = frame.pointee.rst_stream.error_code
            streams[header.stream_id]?.resetByLibrary = lastLibraryMessage
                ?? "nghttp2 reset the stream (\(HTTP2ErrorCode.name(of: code))) over the server's response"
            lastLibraryMessage = nil
        } else if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            let goaway = frame.pointee.goaway
            if ownGoAwaysQueued > 0 {
                ownGoAwaysQueued -= 1
            } else if goaway.error_code != HTTP2ErrorCode.noError {
                // nghttp2 ended the connection over something the server did; its debug data
                // names the problem ("DATA: stream in idle").
                let debug = HTTPHeader.string(goaway.opaque_data, goaway.opaque_data_len)
                fail(debug.isEmpty
                    ? lastLibraryMessage ?? "nghttp2 ended the connection (\(HTTP2ErrorCode.name(of: goaway.error_code)))"
                    : debug, errorCode: nil)
            }
        }
        return 0
    }

    private func onFrameNotSent(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) -> Int32 {
        let streamID = frame.pointee.hd.stream_id
        // A request's HEADERS that never left: the server never saw the request.
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), streams.removeValue(forKey: streamID) != nil else { return 0 }
        requestBodies[streamID] = nil
        let error: HTTP2ClientError = goAway.map { .goAwayBeforeProcessing(lastStreamID: $0.lastStreamID, errorCode: $0.errorCode) }
            ?? .notSent(NGHTTP2Session.describe(libraryError))
        events.append(.streamFailed(streamID: streamID, error))
        return 0
    }

    private func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        requestBodies[streamID] = nil
        cancelled.remove(streamID)
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        let error: HTTP2ClientError
        if let goAway, streamID > goAway.lastStreamID {
            error = .goAwayBeforeProcessing(lastStreamID: goAway.lastStreamID, errorCode: goAway.errorCode)
        } else if stream.resetByServer {
            error = .streamReset(errorCode: errorCode)
        } else if let reason = stream.resetByLibrary {
            error = .protocolError(reason)
        } else {
            error = .connectionClosed("the stream closed (\(HTTP2ErrorCode.name(of: errorCode))) before a complete answer")
        }
        events.append(.streamFailed(streamID: streamID, error))
        return 0
    }

    /// Copies the next part of a request body into nghttp2's frame buffer.
    private func readRequestBody(
        _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int, _ flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        NGHTTP2BodySource.copy(&requestBodies[streamID], into: buffer, length: length, flags: flags)
    }
}

/// A complete response to a request of ours.
package struct HTTP2ClientResponse: Sendable, Equatable {
    /// The final `:status`.
    package var status: Int
    /// The header fields, pseudo-headers left out, in the order received.
    package var headers: [HTTPHeader]
    /// The body, whole (a longer one than the session keeps fails the request instead).
    package var body: [UInt8]

    /// A response of this status, fields and body.
    package init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
