import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsWire

/// One request on its way upstream (upstream mode): where it goes and what is sent, the
/// request as the provider sent it with only its pseudo-headers set anew by the client.
package struct UpstreamHop: Sendable {
    package let route: UpstreamRelayService.Route
    package let method: String
    package let path: String
    /// The request's header fields as they came; the client leaves out the pseudo-headers
    /// (it sets its own) and the fields HTTP/2 forbids.
    package let headers: [HTTPHeader]
    package let body: [UInt8]
    /// `apns-topic`, read from the head (what `--record-scenario` keys a recorded answer by).
    package let topic: String?
    /// Whether the upstream's answer is compared with the core's: not where the core's
    /// verdict rests on state only the upstream holds (broadcast channels it created).
    package let comparesAnswers: Bool
    /// The provider's connection: its requests go on an upstream connection of their own.
    package let affinity: UInt64

    /// The hop for `request`, or `nil` when it cannot be relayed whole (its body was longer
    /// than the server keeps; the core's answer, 413, is Apple's for it too). The fields equal
    /// to those of `earlier` (the connection's last relayed request: nearly all of them) share
    /// its strings instead of being made again.
    package init?(
        _ request: HTTP2Request, reusing earlier: [HTTPHeader] = [], route: UpstreamRelayService.Route,
        comparesAnswers: Bool, affinity: UInt64
    ) {
        guard !request.isBodyTruncated else { return nil }
        self.route = route
        self.method = request.head[.method] ?? "POST"
        self.path = request.head[.path] ?? "/"
        self.headers = request.head.fields(from: 0, reusing: earlier)
        self.body = request.body
        self.topic = request.head[.apnsTopic]
        self.comparesAnswers = comparesAnswers
        self.affinity = affinity
    }
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
