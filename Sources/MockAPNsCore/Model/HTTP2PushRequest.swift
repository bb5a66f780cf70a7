import MockAPNsWire
/// An HTTP/2 request as the protocol mouth received it, before any of Apple's rules apply.
package struct HTTP2PushRequest: Sendable {
    /// Every header field, pseudo-headers included, in the order received.
    package var headers: [HTTPHeader]
    /// The DATA frames' bytes, concatenated.
    package var body: [UInt8]

    package init(headers: [HTTPHeader], body: [UInt8]) {
        self.headers = headers
        self.body = body
    }
}

/// The response a protocol mouth writes back for one HTTP/2 request.
package struct HTTP2PushResponse: Sendable, Equatable {
    package var status: Int
    /// Regular headers (no `:status`), in the order they are sent.
    package var headers: [HTTPHeader]
    /// `nil` means HEADERS carries END_STREAM and no DATA frame follows.
    package var body: [UInt8]?

    package init(status: Int, headers: [HTTPHeader], body: [UInt8]?) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
