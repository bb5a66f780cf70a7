import MockAPNsWire

/// A push request as the web push endpoint received it, over HTTP/2 or HTTP/1.1: its head,
/// read once as it arrived, and its body.
package struct WebPushRequest: Sendable {
    /// The header block: HTTP/2's fields, or HTTP/1.1's request line as `:method` and `:path`
    /// followed by its header fields, names lowercased.
    package var head: RequestHead
    package var body: [UInt8]
    /// The body's true length (the body may be stored cut short when over a cap).
    package var bodyLength: Int

    package init(head: RequestHead, body: [UInt8], bodyLength: Int? = nil) {
        self.head = head
        self.path = head[.path] ?? ""
        self.body = body
        self.bodyLength = bodyLength ?? body.count
    }

    /// A request of `method`, `path` and the header `fields` (names lowercase), in order.
    package init(method: String, path: String, fields: some Sequence<HTTPHeader>, body: [UInt8], bodyLength: Int? = nil) {
        var head = RequestHead()
        head.append(HTTPHeader(name: ":method", value: method))
        head.append(HTTPHeader(name: ":path", value: path))
        for field in fields { head.append(field) }
        self.init(head: head, body: body, bodyLength: bodyLength)
    }

    package var method: String { head[.method] ?? "" }
    /// The path the request is served at: its `:path`, or the path of an HTTP/1.1
    /// absolute-form target (`https://host/<token>`), whose record keeps the target as sent.
    package var path: String
}
