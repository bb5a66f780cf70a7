internal import CNghttp2

/// The table of C callbacks nghttp2 calls during `mem_recv` and `mem_send`. Each one finds
/// the ``NGHTTP2Session`` in `user_data` and forwards to it; none of them keeps a pointer
/// past its return.
enum NGHTTP2Callbacks {
    /// A new callbacks object; the caller deletes it with `nghttp2_session_callbacks_del`
    /// once the session is created (nghttp2 copies it).
    static func make() -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }

        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks) { _, header, userData in
            guard let header, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onBeginFrame(header)
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onBeginHeaders(frame)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onHeader(frame, name: name, nameLength: nameLength, value: value, valueLength: valueLength)
        }
        nghttp2_session_callbacks_set_on_invalid_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onInvalidHeader(frame, name: name, nameLength: nameLength, value: value, valueLength: valueLength)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            _, _, streamID, data, length, userData in
            NGHTTP2Session.from(userData)?.onDataChunk(streamID: streamID, data: data, length: length) ?? 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onFrameReceived(frame)
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) {
            _, frame, libraryError, userData in
            guard let frame, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onInvalidFrame(frame, libraryError: libraryError)
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame, let session = NGHTTP2Session.from(userData) else { return 0 }
            return session.onFrameSent(frame)
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            NGHTTP2Session.from(userData)?.onStreamClose(streamID: streamID, errorCode: errorCode) ?? 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, userData in
            NGHTTP2Session.from(userData)?.onLibraryError(message: message, length: length) ?? 0
        }
        return callbacks
    }
}
