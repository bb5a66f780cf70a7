/// Receives what a connection's HTTP/2 handler learns. Every method is called on the
/// channel's event loop.
///
/// The handler holds its delegate strongly until it leaves the pipeline, so a delegate need
/// not store the handler: each call passes it.
public protocol NGHTTP2ServerDelegate: AnyObject {
    /// A request is complete (the client ended its stream). Answer it with
    /// ``NGHTTP2ServerHandler/respond(streamID:status:headers:body:)``, now or later.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request)
    /// A frame was received or sent. Only called when
    /// ``HTTP2ServerConfiguration/recordsFrames`` is on.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord)
    /// The client broke the protocol. The GOAWAY has been flushed; the connection closes next.
    func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError)
    /// A stream closed, normally (`errorCode` 0) or because it was reset by either side.
    func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32)
}

extension NGHTTP2ServerDelegate {
    public func http2Handler(_ handler: NGHTTP2ServerHandler, didReceive request: HTTP2Request) {}
    public func http2Handler(_ handler: NGHTTP2ServerHandler, didRecord frame: HTTP2FrameRecord) {}
    public func http2Handler(_ handler: NGHTTP2ServerHandler, connectionError: HTTP2ConnectionError) {}
    public func http2Handler(_ handler: NGHTTP2ServerHandler, didCloseStream streamID: Int32, errorCode: UInt32) {}
}

/// Events the server can send through the pipeline (inbound with
/// `fireUserInboundEventTriggered` or outbound with `triggerUserOutboundEvent`) to the
/// HTTP/2 handler.
public enum HTTP2ServerEvent: Sendable, Hashable {
    /// Start a graceful shutdown: GOAWAY NO_ERROR with this debug data (`nil`:
    /// `{"reason":"Shutdown"}`), let open streams finish, then close.
    case gracefulShutdown(debugData: [UInt8]?)
}
