import MockAPNsWire
import NIOCore

/// A complete request: its header block and its body, handed over when the client ends
/// the stream.
package struct HTTP2Request: Sendable {
    /// The client-initiated stream the request arrived on; answer on the same stream.
    package var streamID: Int32
    /// Every header field in arrival order, pseudo-headers (`:method`, `:path`, ...)
    /// included, then trailers if the client sent any.
    package var headers: [HTTPHeader]
    /// The body as stored: at most ``HTTP2ServerConfiguration/maxBodyBytesStored`` bytes.
    package var body: [UInt8]
    /// The true number of body bytes the client sent, even when `body` was cut short.
    package var bodyLength: Int

    package init(streamID: Int32, headers: [HTTPHeader], body: [UInt8], bodyLength: Int) {
        self.streamID = streamID
        self.headers = headers
        self.body = body
        self.bodyLength = bodyLength
    }

    /// Whether the stored body is shorter than what the client sent.
    package var isBodyTruncated: Bool { bodyLength > body.count }

    /// The value of the first header called `name` (compared exactly; wire names are lowercase).
    package func firstValue(of name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// Every value of the headers called `name`, in arrival order.
    package func values(of name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }
}
