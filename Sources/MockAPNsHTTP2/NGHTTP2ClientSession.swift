import MockAPNsWire
internal import CNghttp2
import NIOCore

/// What a client session reports while nghttp2 runs its callbacks. Implemented by
/// `NGHTTP2ClientHandler`, which owns the session.
protocol NGHTTP2ClientSessionListener: AnyObject {
    /// A stream closed: with its complete response, or without one (`errorCode` says why).
    func session(didClose streamID: Int32, response: HTTP2ClientResponse?, errorCode: UInt32)
    /// The server sent GOAWAY: streams above `lastStreamID` were not processed.
    func session(didReceiveGoAway lastStreamID: Int32, errorCode: UInt32)
}

/// One nghttp2 client session: the only place that holds a client `nghttp2_session *`.
///
/// Requests go in with ``submitRequest(headers:body:)``; nghttp2 calls back per header field,
/// per DATA chunk and when a stream closes, and the session hands each response to its
/// listener. Bytes go in with ``receive(_:)`` and come out of ``drainOutput(_:)``, as the
/// server session's do. nghttp2 gets `self` as its `user_data` without a retain: the session
/// owns the `nghttp2_session`, deletes it in ``close()`` (or in `deinit`), and nghttp2 only
/// calls back from inside the session's own calls.
final class NGHTTP2ClientSession {
    private var session: OpaquePointer?
    private unowned let listener: any NGHTTP2ClientSessionListener
    private var headerEncoder = HeaderListEncoder()

    /// What a stream has sent and received so far.
    private struct Stream {
        var requestBody: ByteBuffer?
        var status: Int?
        var headers: [HTTPHeader] = []
        var body: [UInt8] = []
        /// Set when the response body passed `maximumResponseBodyBytes`: the rest is dropped.
        var bodyTruncated = false
    }
    private var streams: [Int32: Stream] = [:]

    /// APNs answers carry at most a small JSON body; anything longer is kept to this many bytes.
    static let maximumResponseBodyBytes = 65_536

    /// Set once the server broke the connection; nothing more is read after it.
    private(set) var failure: String?
    /// The last message nghttp2's error callback gave.
    private var lastLibraryMessage: String?

    /// Creates the client session and queues its SETTINGS (server push off); the connection
    /// preface goes out with the first ``drainOutput(_:)``.
    init(listener: any NGHTTP2ClientSessionListener) throws {
        self.listener = listener
        guard let callbacks = Self.makeCallbacks() else { throw NGHTTP2SessionError.outOfMemory }
        defer { nghttp2_session_callbacks_del(callbacks) }
        var session: OpaquePointer?
        let rv = nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        guard rv == 0, let session else { throw NGHTTP2SessionError.library(code: rv) }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
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
    }

    /// Whether nghttp2 still wants to read or write: `false` once the session is over (a
    /// GOAWAY exchanged and every stream done, or a fatal error).
    var isAlive: Bool {
        guard let session, failure == nil else { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // MARK: Input and output

    /// Feeds received bytes to nghttp2. Returns a description of the failure when these
    /// bytes broke the connection.
    @discardableResult
    func receive(_ buffer: ByteBuffer) -> String? {
        guard let session, failure == nil else { return failure }
        let result = buffer.withUnsafeReadableBytes { bytes -> Int in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return nghttp2_session_mem_recv(session, base, bytes.count)
        }
        if result < 0 {
            let code = Int32(truncatingIfNeeded: result)
            failure = "the server broke HTTP/2: \(lastLibraryMessage ?? NGHTTP2Session.describe(code))"
        }
        return failure
    }

    /// Hands the bytes nghttp2 wants to send to `write`, chunk by chunk, until it has none.
    func drainOutput(_ write: (UnsafeRawBufferPointer) -> Void) {
        while let session, failure == nil {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 {
                failure = "nghttp2 could not serialize frames: \(NGHTTP2Session.describe(Int32(truncatingIfNeeded: length)))"
                return
            }
            guard length > 0, let chunk else { return }
            write(UnsafeRawBufferPointer(start: chunk, count: length))
        }
    }

    // MARK: Submitting frames

    /// Queues a request: HEADERS (`headers` must start with the pseudo-headers), then the body
    /// as DATA frames when there is one. Returns its stream ID, or `nil` when nghttp2 refused
    /// (the session is going away, or stream IDs ran out).
    func submitRequest(headers: [HTTPHeader], body: ByteBuffer?) -> Int32? {
        guard let session, failure == nil else { return nil }
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
        guard streamID > 0 else { return nil }
        streams[streamID] = Stream(requestBody: body)
        return streamID
    }

    /// Queues RST_STREAM for a stream of ours (a request given up on). Its close is reported
    /// like any other, without a response.
    func submitReset(streamID: Int32, errorCode: UInt32) {
        guard let session else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// Queues GOAWAY NO_ERROR: this client opens no more streams.
    func submitGoAway() {
        guard let session else { return }
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
                                  HTTP2ErrorCode.noError, nil, 0)
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
        let streamID = frame.pointee.hd.stream_id
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), streams[streamID] != nil,
              let name, let value else { return 0 }
        let fieldName = HTTPHeader.string(name, nameLength)
        let fieldValue = HTTPHeader.string(value, valueLength)
        if fieldName == ":status" {
            // An informational (1xx) status is followed by the final one, which replaces it.
            streams[streamID]?.status = Int(fieldValue)
        } else if !fieldName.hasPrefix(":") {
            streams[streamID]?.headers.append(HTTPHeader(name: fieldName, value: fieldValue))
        }
        return 0
    }

    private func onDataChunk(streamID: Int32, data: UnsafePointer<UInt8>?, length: Int) -> Int32 {
        guard let data, var stream = streams[streamID] else { return 0 }
        let room = max(0, Self.maximumResponseBodyBytes - stream.body.count)
        stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: min(room, length)))
        if length > room { stream.bodyTruncated = true }
        streams[streamID] = stream
        return 0
    }

    private func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            listener.session(didReceiveGoAway: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
        }
        return 0
    }

    private func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        var response: HTTP2ClientResponse?
        if errorCode == HTTP2ErrorCode.noError, let status = stream.status, status >= 200 {
            response = HTTP2ClientResponse(status: status, headers: stream.headers, body: stream.body)
        }
        listener.session(didClose: streamID, response: response, errorCode: errorCode)
        return 0
    }

    /// Copies the next part of a request body into nghttp2's frame buffer.
    private func readRequestBody(
        _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int, _ flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        guard var stream = streams[streamID], var body = stream.requestBody, let buffer else {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(length, body.readableBytes)
        body.withUnsafeReadableBytes { bytes in
            if let base = bytes.baseAddress {
                buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
            }
        }
        body.moveReaderIndex(forwardBy: count)
        if body.readableBytes == 0 {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            stream.requestBody = nil
        } else {
            stream.requestBody = body
        }
        streams[streamID] = stream
        return count
    }
}

/// A complete response to a request of ours.
package struct HTTP2ClientResponse: Sendable, Equatable {
    /// The final `:status`.
    package var status: Int
    /// The header fields, pseudo-headers left out, in the order received.
    package var headers: [HTTPHeader]
    /// The body (at most 64 KiB of it).
    package var body: [UInt8]

    package init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
