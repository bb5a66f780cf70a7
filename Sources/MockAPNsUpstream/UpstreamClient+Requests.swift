import MockAPNsHTTP2
import MockAPNsWire
import NIOCore

// The requests an `UpstreamClient` sends: the list of fields it makes of what it is given,
// and the ways to send one.
extension UpstreamClient {
    /// Sends one request and returns the upstream's answer, or fails with an
    /// `UpstreamFailure`. `headers` are the regular fields: the client sets `:method`,
    /// `:scheme`, `:authority` (the endpoint's `host[:port]`) and `:path`, and leaves out any
    /// pseudo-header given and the fields HTTP/2 forbids (`host`, `connection`, ...).
    package func send(
        method: String, path: String, headers: [HTTPHeader], body: [UInt8], affinity: UInt64? = nil
    ) -> EventLoopFuture<UpstreamResponse> {
        send(request(method: method, path: path, headers: headers, body: body), affinity: affinity)
    }

    /// The request `send(method:path:headers:body:affinity:)` sends, made ahead: whoever sends
    /// the same fields again sends it again, and the list is not made anew.
    package func request(method: String, path: String, headers: [HTTPHeader], body: [UInt8]) -> HTTP2ClientRequest {
        HTTP2ClientRequest(headers: requestHeaders(method: method, path: path, headers: headers), body: body)
    }

    private func requestHeaders(method: String, path: String, headers: [HTTPHeader]) -> [HTTPHeader] {
        var fields: [HTTPHeader] = []
        fields.reserveCapacity(4 + headers.count)  // one list, made once
        fields.append(HTTPHeader(name: ":method", value: method))
        fields.append(HTTPHeader(name: ":scheme", value: "https"))
        fields.append(HTTPHeader(name: ":authority", value: endpoint.authority))
        fields.append(HTTPHeader(name: ":path", value: path))
        for header in headers where !Self.isLeftOut(header) {
            fields.append(header)
        }
        return fields
    }

    /// Whether a given field stays out of the request: a pseudo-header (the client sets its
    /// own), a field HTTP/2 forbids in a request (`te` unless it is `trailers`), or `host`
    /// (`:authority` replaces it).
    package static func isLeftOut(_ header: HTTPHeader) -> Bool {
        let name = header.name
        if HTTPHeader.isPseudoField(name) { return true }
        if name.utf8.count == 4 { return name.lowercased() == "host" }
        guard HTTPHeader.isConnectionSpecific(name) else { return false }
        return name.utf8.count != 2 || header.value.lowercased() != "trailers"
    }
}
