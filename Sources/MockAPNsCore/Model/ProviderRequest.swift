import MockAPNsWire
/// What a provider sent, as the protocol mouth received it, before any of Apple's rules apply:
/// its head and its body. A device push, a broadcast send and a channel management request
/// are each one (web push reads its head into `WebPushRequest`, which adds what its rules need).
package struct ProviderRequest: Sendable {
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
}

/// The answer a provider is sent for one request: status, header fields and body, whichever
/// HTTP version carries it (an HTTP/2 stream, web push over HTTP/1.1), and as the channel
/// operation's record keeps it.
package struct ProviderAnswer: Sendable, Equatable {
    package var status: Int
    /// Regular headers (no `:status`), in the order they are sent.
    package var headers: [HTTPHeader]
    /// `nil`: no body (on HTTP/2, HEADERS carries END_STREAM and no DATA frame follows).
    package var body: [UInt8]?

    package init(status: Int, headers: [HTTPHeader], body: [UInt8]?) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
