import MockAPNsWire
/// An HTTP/2 request as the protocol mouth received it, before any of Apple's rules apply.
public struct HTTP2PushRequest: Sendable {
    /// Every header field, pseudo-headers included, in the order received.
    public var headers: [HTTPHeader]
    /// The DATA frames' bytes, concatenated.
    public var body: [UInt8]

    public init(headers: [HTTPHeader], body: [UInt8]) {
        self.headers = headers
        self.body = body
    }
}

/// The response a protocol mouth writes back for one HTTP/2 request.
public struct HTTP2PushResponse: Sendable, Equatable {
    public var status: Int
    /// Regular headers (no `:status`), in the order they are sent.
    public var headers: [HTTPHeader]
    /// `nil` means HEADERS carries END_STREAM and no DATA frame follows.
    public var body: [UInt8]?

    public init(status: Int, headers: [HTTPHeader], body: [UInt8]?) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
