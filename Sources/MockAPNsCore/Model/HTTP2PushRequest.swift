import MockAPNsWire
/// An HTTP/2 request as the protocol mouth received it, before any of Apple's rules apply.
package struct HTTP2PushRequest: Sendable {
    /// The header block, read once as it arrived.
    package var head: RequestHead
    /// The DATA frames' bytes, concatenated.
    package var body: [UInt8]

    package init(head: RequestHead, body: [UInt8]) {
        self.head = head
        self.body = body
    }

    /// A request of `headers`, read into a head (tests, tools and records of refused
    /// streams, which start from a list).
    package init(headers: [HTTPHeader], body: [UInt8]) {
        self.init(head: RequestHead(headers), body: body)
    }

    /// Every header field, pseudo-headers included, in the order received.
    package var headers: [HTTPHeader] { head.fields }
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
