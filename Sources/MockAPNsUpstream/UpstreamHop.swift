import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsWire

/// One request on its way upstream (upstream mode): where it goes and what is sent, the
/// request as the provider sent it with only its pseudo-headers set anew by the client.
/// A class: the hop travels from the request through the answer flow into the closure that
/// waits for the upstream, and a copy of one reference is cheaper than a copy of its ten.
package final class UpstreamHop: Sendable {
    package let route: UpstreamRelayService.Route
    /// The request's header fields as they came; the client leaves out the pseudo-headers
    /// (it sets its own) and the fields HTTP/2 forbids.
    package let headers: [HTTPHeader]
    package let body: [UInt8]
    /// What the client sends: its pseudo-headers, then `headers` less those it leaves out,
    /// and `body`. Made once per hop, not again as the request is sent.
    package let request: HTTP2ClientRequest
    /// Whether the upstream's answer is compared with the core's: not where the core's
    /// verdict rests on state only the upstream holds (broadcast channels it created).
    package let comparesAnswers: Bool
    /// The provider's connection: its requests go on an upstream connection of their own.
    package let affinity: UInt64
    /// The head the fields were read from: a later request whose head has its fields
    /// (`RequestHead.hasFields(of:)`) takes this hop's lists whole.
    private let head: RequestHead

    /// The hop for `request`, or `nil` when it cannot be relayed whole (its body was longer
    /// than the server keeps; the core's answer, 413, is Apple's for it too). `previous` is
    /// the connection's last hop: when the request repeats its fields (a provider's usual
    /// next push to one device), its lists are taken whole, known in one comparison; else the
    /// fields equal to its fields (nearly all of them) share their strings.
    package init?(
        _ request: HTTP2Request, after previous: UpstreamHop? = nil, route: UpstreamRelayService.Route,
        comparesAnswers: Bool, affinity: UInt64
    ) {
        guard !request.isBodyTruncated else { return nil }
        self.route = route
        self.body = request.body
        if let previous, previous.route.client === route.client, request.head.hasFields(of: previous.head) {
            self.headers = previous.headers
            self.request = HTTP2ClientRequest(headers: previous.request.headers, body: request.body)
        } else {
            self.headers = request.head.fields(from: 0, reusing: previous?.headers ?? [])
            self.request = route.client.request(
                method: request.head[.method] ?? "POST", path: request.head[.path] ?? "/", headers: headers, body: request.body
            )
        }
        self.head = request.head
        self.comparesAnswers = comparesAnswers
        self.affinity = affinity
    }

    // Read from the head when asked (a diagnosis, a recorded answer), not for every request.
    package var method: String { head[.method] ?? "POST" }
    package var path: String { head[.path] ?? "/" }
    /// `apns-topic` (what `--record-scenario` keys a recorded answer by).
    package var topic: String? { head[.apnsTopic] }
}

extension UpstreamFailure {
    /// What the provider is answered in place of the upstream's answer: 503
    /// ServiceUnavailable, or 500 InternalServerError when the upstream reset the stream or
    /// broke HTTP/2 (Apple's own answers for those cases).
    package var answeredReason: Reason {
        switch self {
        case .reset, .protocolError: .internalServerError
        case .unreachable, .tlsFailed, .timedOut, .closed, .shutDown, .overloaded: .serviceUnavailable
        }
    }
}
