import MockAPNsWire
/// Why a connection is being torn down because of what the client sent.
///
/// When the delegate hears of it, the GOAWAY carrying `errorCode` is serialized and on its
/// way out; the connection closes as soon as it is written.
package struct HTTP2ConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The families of connection errors.
    package enum Kind: Sendable, Hashable {
        /// The client did not start with the HTTP/2 connection preface.
        case badPreface
        /// The client broke the protocol (malformed frame, bad stream state, HPACK error,
        /// flow-control violation...). `errorCode` says which.
        case protocolViolation
        /// The client opened more streams than MAX_CONCURRENT_STREAMS allows.
        case streamLimitExceeded
        /// The client flooded the server with frames that each need an answer.
        case flooded
        /// nghttp2 failed for a reason of its own (out of memory and the like).
        case internalFailure
    }

    /// What went wrong, in broad strokes.
    package var kind: Kind
    /// The HTTP/2 error code sent in the GOAWAY (see ``HTTP2ErrorCode``).
    package var errorCode: UInt32
    /// A sentence a person can act on.
    package var message: String

    package init(kind: Kind, errorCode: UInt32, message: String) {
        self.kind = kind
        self.errorCode = errorCode
        self.message = message
    }

    package var description: String { "\(HTTP2ErrorCode.name(of: errorCode)): \(message)" }
}

/// A stream nghttp2 reset by itself because of what the client sent on it (a malformed
/// header field, a flow-control overrun, a stream over a limit not yet acknowledged...).
/// The RST_STREAM carrying `errorCode` has been written; the connection lives on.
package struct HTTP2StreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The client stream that was reset.
    package var streamID: Int32
    /// The HTTP/2 error code sent in the RST_STREAM (see ``HTTP2ErrorCode``).
    package var errorCode: UInt32
    /// A sentence a person can act on; nghttp2's own words when it gave any.
    package var message: String
    /// The request's header fields as far as they arrived, exactly as sent (the field that
    /// broke the rules included); `nil` when the stream carried no request that was not
    /// already handed over.
    package var headers: [HTTPHeader]?

    package init(streamID: Int32, errorCode: UInt32, message: String, headers: [HTTPHeader]? = nil) {
        self.streamID = streamID
        self.errorCode = errorCode
        self.message = message
        self.headers = headers
    }

    package var description: String { "stream \(streamID) \(HTTP2ErrorCode.name(of: errorCode)): \(message)" }
}

/// A stream nghttp2 refused with RST_STREAM REFUSED_STREAM because the client opened it
/// beyond a MAX_CONCURRENT_STREAMS the server had announced but the client had not yet
/// acknowledged (typically: many streams sent before the server's first SETTINGS was read).
/// The request was never processed.
package struct HTTP2RefusedStream: Sendable, Hashable {
    package var streamID: Int32
    /// The request's header fields, decoded beside nghttp2; `nil` when they could not be
    /// (decoding is kept up only while refusals can happen, see ``HTTP2ServerConfiguration/decodesRefusedStreamHeaders``).
    package var headers: [HTTPHeader]?
    /// Streams open when it arrived, and the limit announced.
    package var openStreams: Int
    package var announcedLimit: UInt32
    /// The RST_STREAM's error code (REFUSED_STREAM).
    package var errorCode: UInt32

    package init(streamID: Int32, headers: [HTTPHeader]?, openStreams: Int, announcedLimit: UInt32, errorCode: UInt32) {
        self.streamID = streamID
        self.headers = headers
        self.openStreams = openStreams
        self.announcedLimit = announcedLimit
        self.errorCode = errorCode
    }

    /// Why it was refused.
    package var reason: String {
        "the client opened stream \(streamID) while \(openStreams) stream\(openStreams == 1 ? " was" : "s were") open; "
            + "the server had announced SETTINGS_MAX_CONCURRENT_STREAMS = \(announcedLimit) and the client had not yet "
            + "acknowledged it (it sent the stream before reading the server's SETTINGS)"
    }

    /// What the RST_STREAM tells the client (RFC 9113, section 8.7).
    package var meaning: String {
        "RST_STREAM \(HTTP2ErrorCode.name(of: errorCode)) (\(errorCode)): the server did not process the request at all, "
            + "so it is safe to send it again, on this connection once a stream is free or on another"
    }
}
