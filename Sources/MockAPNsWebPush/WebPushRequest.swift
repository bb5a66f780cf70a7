/// One push request as the HTTP layer hands it over.
package struct WebPushRequest: Sendable {
    package var method: String
    package var path: String
    /// Names lowercased, in the order sent.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The body's true length (the body may be stored cut short when over a cap).
    package var bodyLength: Int

    package init(method: String, path: String, headers: [(name: String, value: String)], body: [UInt8], bodyLength: Int? = nil) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.bodyLength = bodyLength ?? body.count
    }

    /// The first value of header `name` (lowercase).
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}
