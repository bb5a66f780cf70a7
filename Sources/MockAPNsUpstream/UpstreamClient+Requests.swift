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
    /// own), a field HTTP/2 forbids in a request (RFC 9113, section 8.2.2; `te` unless it is
    /// `trailers`), or `host` (`:authority` replaces it). Names compare byte by byte, ASCII
    /// letters in either case, by length first: no name is lowercased and none is hashed,
    /// which for every field of every relayed request cost more than copying the fields.
    package static func isLeftOut(_ header: HTTPHeader) -> Bool {
        let name = header.name
        if HTTPHeader.isPseudoField(name) { return true }
        func named(_ lowercase: StaticString) -> Bool {
            lowercase.withUTF8Buffer { expected in
                name.utf8.elementsEqual(expected) { byte, lower in
                    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
                }
            }
        }
        switch name.utf8.count {
        case 2: return named("te") && header.value.lowercased() != "trailers"
        case 4: return named("host")
        case 7: return named("upgrade")
        case 10: return named("connection") || named("keep-alive")
        case 16: return named("proxy-connection")
        case 17: return named("transfer-encoding")
        default: return false
        }
    }
}
