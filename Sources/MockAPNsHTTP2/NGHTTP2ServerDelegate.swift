import MockAPNsWire
/// Receives what a connection's HTTP/2 handler learns. Every method is called on the
/// channel's event loop.
///
/// The handler holds its delegate strongly until it leaves the pipeline, so a delegate need
/// not store the handler: each call passes it.
package protocol NGHTTP2ServerDelegate: AnyObject {
    /// A request is complete (the client ended its stream). Answer it with
    /// ``NGHTTP2ServerHandler/respond(streamID:status:headers:body:)``, now or later.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request)
    /// A frame was received or sent. Only called when
    /// ``HTTP2ServerConfiguration/recordsFrames`` is on.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord)
    /// The client broke the protocol. Its GOAWAY is on the way out; the connection closes
    /// once it is written.
    func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError)
    /// nghttp2 reset a stream over something the client sent on it; the connection lives on.
    func http2Handler(_ handler: NGHTTP2ServerHandler, streamError: HTTP2StreamError)
    /// A stream closed, normally (`errorCode` 0) or because it was reset by either side.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32)
    /// nghttp2 refused a stream opened beyond an unacknowledged MAX_CONCURRENT_STREAMS; its
    /// request was never processed. Reported before the RST_STREAM's stream error.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuseStream refused: HTTP2RefusedStream)
    /// The handler answered a request itself, without handing it over (a header list over
    /// MAX_HEADER_LIST_SIZE answered 431).
    func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuse refusal: HTTP2RequestRefusal)
    /// The client opened stream `streamID` after the server's GOAWAY named `lastStreamID` as
    /// the last it would process; nghttp2 ignores the stream (the client should have opened a
    /// new connection).
    func http2Handler(_ handler: NGHTTP2ServerHandler, didIgnoreStream streamID: Int32, afterGoAwayNaming lastStreamID: Int32)
}

extension NGHTTP2ServerDelegate {
    package func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, streamError: HTTP2StreamError) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuseStream refused: HTTP2RefusedStream) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, didRefuse refusal: HTTP2RequestRefusal) {}
    package func http2Handler(_ handler: NGHTTP2ServerHandler, didIgnoreStream streamID: Int32, afterGoAwayNaming lastStreamID: Int32) {}
}

/// A request the handler answered itself instead of handing it to the delegate.
package struct HTTP2RequestRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The client stream the request arrived on.
    package var streamID: Int32
    /// The `:status` of the answer sent.
    package var status: Int
    /// Why, in a sentence a person can act on.
    package var message: String
    /// The request's header fields that were kept (those within the limit), as sent.
    package var headers: [HTTPHeader]

    package init(streamID: Int32, status: Int, headers: [HTTPHeader] = [], message: String) {
        self.streamID = streamID
        self.status = status
        self.headers = headers
        self.message = message
    }

    package var description: String { "stream \(streamID) answered \(status): \(message)" }
}

/// Send this through the pipeline (inbound with `fireUserInboundEventTriggered`, or
/// outbound with `triggerUserOutboundEvent`) to start a graceful shutdown without a handle
/// on the handler: GOAWAY NO_ERROR, open streams finish, then the connection closes.
/// See ``NGHTTP2ServerHandler/gracefulShutdown(debugData:)``.
package struct HTTP2GracefulShutdownEvent: Sendable, Hashable {
    /// The GOAWAY's debug data; `nil` sends Apple's `{"reason":"Shutdown"}`.
    package var debugData: [UInt8]?

    package init(debugData: [UInt8]? = nil) {
        self.debugData = debugData
    }
}

/// Sent outbound by ``NGHTTP2ServerHandler`` just before it closes a connection that the
/// client ended with a GOAWAY of its own, sent before any of the server's (what HTTP/2 clients
/// do when they close): whoever records who closed the connection learns it was the client,
/// although the last close call is the server's.
package struct HTTP2ClientWentAwayEvent: Sendable, Hashable {
    /// The client's GOAWAY error code (`NO_ERROR` for a clean close).
    package var errorCode: UInt32

    package init(errorCode: UInt32) {
        self.errorCode = errorCode
    }
}
