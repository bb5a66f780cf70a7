import MockAPNsWire
/// What a provider sent, as the protocol mouth received it, before any of Apple's rules apply:
/// its head and its body. A device push, a broadcast send and a channel management request
/// are each one (web push reads its head into `WebPushRequest`, which adds what its rules need).
package struct ProviderRequest: Sendable {
    /// The header block, read once as it arrived.
    package var head: RequestHead
    /// The DATA frames' bytes, concatenated.
    package var body: [UInt8]
    /// The device token of the connection's previous push, as the validator read it: a
    /// request to the same device is given that string rather than a new one (a provider
    /// sends to one device many times; its connection's topic and token header are shared
    /// the same way).
    package var previousDeviceToken: String?

    package init(head: RequestHead, body: [UInt8], previousDeviceToken: String? = nil) {
        self.head = head
        self.body = body
        self.previousDeviceToken = previousDeviceToken
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
    /// The status and fields as the HTTP/2 session submits them: `headers`, with the
    /// `apns-id` and `apns-unique-id` as values placed among them. Apple's own answers carry
    /// their ids as values, so a made id is written to the wire from its bits; a scripted
    /// answer's ids are among its `headers`, as the scenario wrote them.
    package var responseHead: ResponseHead
    /// `nil`: no body (on HTTP/2, HEADERS carries END_STREAM and no DATA frame follows).
    package var body: [UInt8]?

    package init(
        status: Int, headers: [HTTPHeader], apnsID: MessageID? = nil, uniqueID: MessageID? = nil, idsAfter: Int = 0,
        body: [UInt8]?
    ) {
        self.responseHead = ResponseHead(status: status, headers: headers, apnsID: apnsID, uniqueID: uniqueID, idsAfter: idsAfter)
        self.body = body
    }

    /// An answer as another server wrote it (the upstream's, relayed), to go out unchanged:
    /// `headers` in their order, the `apns-id` (and the `apns-unique-id` right after it, as
    /// Apple sends them) held as ids at their place, so that they are written from their bits
    /// as the server's own ids are, when they are UUIDs in one letter case; else as given.
    package init(relaying status: Int, headers: [HTTPHeader], body: [UInt8]?) {
        func id(_ value: String) -> MessageID { UUIDBits(value).map(MessageID.uuid) ?? .text(value) }
        // One pass: where the ids start (`first`) and end (`end`, exclusive).
        var first: Int?
        var end = 0
        var apnsID: MessageID?
        var uniqueID: MessageID?
        for (index, header) in headers.enumerated() {
            let name = header.name
            if first == nil, name == "apns-id" {
                apnsID = id(header.value)
            } else if first == nil || (apnsID != nil && uniqueID == nil && index == end), name == "apns-unique-id" {
                uniqueID = id(header.value)
            } else {
                continue
            }
            if first == nil { first = index }
            end = index + 1
        }
        guard let first else {
            self.init(status: status, headers: headers, body: body)
            return
        }
        // Apple's answers carry nothing but the ids: no list is made for the rest then.
        let rest = first == 0 && end == headers.count ? [] : Array(headers[..<first]) + headers[end...]
        self.init(status: status, headers: rest, apnsID: apnsID, uniqueID: uniqueID, idsAfter: first, body: body)
    }

    package var status: Int {
        get { responseHead.status }
        set { responseHead.status = newValue }
    }

    /// Regular headers (no `:status`, no id given as a value), in the order they are sent.
    package var headers: [HTTPHeader] {
        get { responseHead.headers }
        set { responseHead.headers = newValue }
    }

    package var apnsID: MessageID? {
        get { responseHead.apnsID }
        set { responseHead.apnsID = newValue }
    }

    package var uniqueID: MessageID? {
        get { responseHead.uniqueID }
        set { responseHead.uniqueID = newValue }
    }

    /// Every field in the order sent (no `:status`), the ids as text.
    package var fields: [HTTPHeader] {
        Array(responseHead.fields.dropFirst())
    }

    /// Answers are equal when the same goes on the wire, whether an id is a value or a field.
    package static func == (lhs: ProviderAnswer, rhs: ProviderAnswer) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.fields == rhs.fields
    }
}
