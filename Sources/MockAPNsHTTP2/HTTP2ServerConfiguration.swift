import NIOCore

/// How a connection's HTTP/2 server side behaves: the SETTINGS it announces and the limits
/// it keeps.
///
/// The defaults are the SETTINGS Apple's servers were seen to send (HEADER_TABLE_SIZE 4096,
/// MAX_CONCURRENT_STREAMS 1000, INITIAL_WINDOW_SIZE 65535, MAX_FRAME_SIZE 16384,
/// MAX_HEADER_LIST_SIZE 8000). ENABLE_PUSH is never sent, as Apple does not send it.
package struct HTTP2ServerConfiguration: Sendable {
    /// SETTINGS_HEADER_TABLE_SIZE: the HPACK dynamic table the server keeps for decoding.
    package var headerTableSize: UInt32
    /// SETTINGS_MAX_CONCURRENT_STREAMS announced when the connection opens.
    /// Token-authenticated connections start at 1 and are raised later with
    /// ``NGHTTP2ServerHandler/setMaxConcurrentStreams(_:)``.
    package var maxConcurrentStreams: UInt32
    /// SETTINGS_INITIAL_WINDOW_SIZE: the flow-control window of each stream the client opens.
    package var initialWindowSize: UInt32
    /// SETTINGS_MAX_FRAME_SIZE: the largest frame payload the server accepts.
    package var maxFrameSize: UInt32
    /// SETTINGS_MAX_HEADER_LIST_SIZE announced to the client.
    package var maxHeaderListSize: UInt32
    /// After this long with no bytes received and no open streams, the server sends GOAWAY
    /// NO_ERROR with debug data `{"reason":"IdleTimeout"}` and closes. `nil` never times out.
    package var idleTimeout: TimeAmount?
    /// At most this many body bytes are kept per request. Anything beyond is counted
    /// (``HTTP2Request/bodyLength`` stays true) but dropped, so a huge upload cannot
    /// exhaust memory.
    package var maxBodyBytesStored: Int
    /// Whether every frame in and out is described to the delegate as an
    /// ``HTTP2FrameRecord``. Off, no record is built at all.
    package var recordsFrames: Bool
    /// What happens when a client opens more streams than MAX_CONCURRENT_STREAMS allows.
    package var streamLimitViolation: StreamLimitViolationResponse
    /// Whether the header fields of streams nghttp2 refuses (REFUSED_STREAM, beyond a limit
    /// the client has not acknowledged) are decoded for ``NGHTTP2ServerDelegate``. It costs a
    /// second HPACK decode of every header block until the client has acknowledged a
    /// raised limit (after which refusals no longer happen); meant for connections that
    /// start with a low limit, such as Apple's token connections (one stream).
    package var decodesRefusedStreamHeaders = false
    /// What happens to a request whose header list is larger than MAX_HEADER_LIST_SIZE.
    package var headerListOverflow: HeaderListOverflowResponse
    /// The debug data of the GOAWAY frames the server sends on its own (the application's
    /// words; empty by default).
    package var goAwayDebugData = GoAwayDebugData()

    /// Creates a configuration; every parameter defaults to what Apple's servers do.
    package init(
        headerTableSize: UInt32 = 4096,
        maxConcurrentStreams: UInt32 = 1000,
        initialWindowSize: UInt32 = 65535,
        maxFrameSize: UInt32 = 16384,
        maxHeaderListSize: UInt32 = 8000,
        idleTimeout: TimeAmount? = nil,
        maxBodyBytesStored: Int = 64 * 1024,
        recordsFrames: Bool = false,
        streamLimitViolation: StreamLimitViolationResponse = .goAway,
        headerListOverflow: HeaderListOverflowResponse = .answer431
    ) {
        self.headerTableSize = headerTableSize
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
        self.idleTimeout = idleTimeout
        self.maxBodyBytesStored = max(0, maxBodyBytesStored)
        self.recordsFrames = recordsFrames
        self.streamLimitViolation = streamLimitViolation
        self.headerListOverflow = headerListOverflow
    }
}

/// The answer to a request whose header list (names, values and 32 bytes per field) is
/// larger than the SETTINGS_MAX_HEADER_LIST_SIZE the server announced. RFC 9113 makes the
/// setting advisory (section 6.5.2) and says a server "can send an HTTP 431" for a field
/// block larger than it is willing to handle, after decoding the block to keep the
/// connection's HPACK state (section 10.5.1).
package enum HeaderListOverflowResponse: String, Sendable, Hashable, CaseIterable {
    /// Decode the whole block, keep none of the fields past the limit, and answer
    /// `:status 431` without a body once the block ends; the request never reaches the
    /// delegate. This is what Go's HTTP/2 server does.
    case answer431
    /// RST_STREAM PROTOCOL_ERROR as soon as the list passes the limit.
    case resetStream
}

/// The answer to a client that opens more concurrent streams than the server allows.
package enum StreamLimitViolationResponse: Sendable, Hashable {
    /// GOAWAY with error code 7 (REFUSED_STREAM) and `GoAwayDebugData.streamLimit`, then close.
    case goAway
    /// Leave it to nghttp2. A stream opened while a lowered limit is still unacknowledged
    /// by the client is refused with RST_STREAM REFUSED_STREAM and the connection lives on;
    /// a client that ignores an acknowledged limit gets GOAWAY PROTOCOL_ERROR.
    case nghttp2Default
}

/// The debug data of the GOAWAY frames a server sends by itself. A server speaking for some
/// service puts that service's words here.
package struct GoAwayDebugData: Sendable, Hashable {
    /// A graceful shutdown's GOAWAY (NO_ERROR).
    package var shutdown: [UInt8]
    /// The idle timeout's GOAWAY (NO_ERROR).
    package var idleTimeout: [UInt8]
    /// The GOAWAY (REFUSED_STREAM) of `StreamLimitViolationResponse.goAway`.
    package var streamLimit: [UInt8]

    package init(shutdown: [UInt8] = [], idleTimeout: [UInt8] = [], streamLimit: [UInt8] = []) {
        self.shutdown = shutdown
        self.idleTimeout = idleTimeout
        self.streamLimit = streamLimit
    }
}
