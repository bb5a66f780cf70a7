import MockAPNsWire

/// Where an HTTP/1.1 web push request is addressed, from its request target and its `Host`
/// lines (RFC 9112, section 3.2), before the decider reads the path:
///
/// - two `Host` lines, or none on HTTP/1.1: the message is malformed (400, the connection
///   closed), as RFC 9112 has a server answer;
/// - an origin-form target (`/<token>`): served, with the `Host` value as the request's
///   authority (any name: on HTTP/2 any `:authority` is served too, and both only widen the
///   origins a VAPID `aud` may name);
/// - an absolute-form target (`https://host:port/<token>`): the target's authority replaces
///   `Host` (RFC 9112, section 3.2.2). Served when it names this endpoint (the endpoint
///   origin's authority, or the one `Host` names: the name the client connected with); an
///   `http:` target, or one naming another host, was meant for another server: 421
///   Misdirected Request (RFC 9110, section 15.5.20), as the control API answers a name it
///   does not serve.
package enum WebPushHTTP1Target: Sendable, Equatable {
    case served(path: String, authority: String?)
    case malformed(String)
    case misdirected(String)

    /// - Parameters:
    ///   - target: the request line's target, as sent.
    ///   - hostLines: the values of every `Host` line.
    ///   - requiresHost: whether the request is HTTP/1.1 (HTTP/1.0 may leave `Host` out).
    ///   - endpointOrigin: the origin subscription endpoints name (`https://127.0.0.1:2200`).
    package static func resolve(target: String, hostLines: [String], requiresHost: Bool, endpointOrigin: String) -> Self {
        guard hostLines.count <= 1 else {
            return .malformed("\(hostLines.count) Host lines; RFC 9112 (section 3.2) has a server refuse a request with more than one")
        }
        let host = hostLines.first
        if host == nil, requiresHost {
            return .malformed("no Host line; RFC 9112 (section 3.2) has a server refuse an HTTP/1.1 request without one")
        }
        guard let separator = target.range(of: "://"), !target.hasPrefix("/") else {
            return .served(path: target, authority: host)
        }
        let scheme = target[..<separator.lowerBound].lowercased()
        let rest = target[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest[authority.endIndex...])
        if !path.hasPrefix("/") { path = "/" + path }
        let served = [endpointOrigin.range(of: "://").map { String(endpointOrigin[$0.upperBound...]) }, host]
            .compactMap { $0.map(Self.normalized) }
        guard scheme == "https", !authority.isEmpty, !authority.contains("@"), served.contains(Self.normalized(authority)) else {
            return .misdirected(
                "the request target \(target.prefix(200)) names \(scheme)://\(authority.prefix(100)), not this endpoint "
                    + "(\(endpointOrigin)\(host.map { " or https://\($0.prefix(100))" } ?? "")): it was meant for another server")
        }
        return .served(path: path, authority: String(authority))
    }

    /// The `Host` lines of a request read into `head`, counted as NIO's decoder lists them: a
    /// line's comma-separated values count as lines, an empty one as none. Only a request that
    /// repeats `Host`, refused whatever its lines hold, has its fields read again, to say how many.
    package static func hostLines(of head: RequestHead) -> [String] {
        guard head.contains(.host) else { return [] }
        guard head.repeated.contains(.host) else { return values(in: head[.host] ?? "") }
        return head.fields.filter { $0.name == "host" }.flatMap { values(in: $0.value) }
    }

    private static func values(in line: String) -> [String] {
        line.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }.map(String.init)
    }

    /// An authority compared without case, with HTTPS's default port when it names none.
    static func normalized(_ authority: some StringProtocol) -> String {
        let text = authority.lowercased()
        if let colon = text.lastIndex(of: ":"), !text[text.index(after: colon)...].isEmpty,
           text[text.index(after: colon)...].allSatisfy(\.isASCIIDigit),
           !text[colon...].contains("]") {
            // host:port, or [v6]:port (a bare v6 literal has no brackets in an authority).
            return text.hasPrefix("[") || !text[..<colon].contains(":") ? text : text + ":443"
        }
        return text + ":443"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
