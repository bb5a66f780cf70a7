import MockAPNsWire
import NIOCore

/// A complete request: its header block and its body, handed over when the client ends
/// the stream.
package struct HTTP2Request: Sendable {
    /// The client-initiated stream the request arrived on; answer on the same stream.
    package var streamID: Int32
    /// The header block, read once as it arrived: every field in arrival order,
    /// pseudo-headers (`:method`, `:path`, ...) included, then trailers if the client sent
    /// any, and the fields MockAPNs reads.
    package var head: RequestHead
    /// The body as stored: at most ``HTTP2ServerConfiguration/maxBodyBytesStored`` bytes.
    package var body: [UInt8]
    /// The true number of body bytes the client sent, even when `body` was cut short.
    package var bodyLength: Int

    package init(streamID: Int32, head: RequestHead, body: [UInt8], bodyLength: Int) {
        self.streamID = streamID
        self.head = head
        self.body = body
        self.bodyLength = bodyLength
    }

    /// Whether the stored body is shorter than what the client sent.
    package var isBodyTruncated: Bool { bodyLength > body.count }
}
