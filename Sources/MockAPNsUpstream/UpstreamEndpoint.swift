// Upstream mode (`mockapns serve --upstream`): MockAPNs in front of the real APNs. Here: where
// the upstream is (`UpstreamEndpoint`), the settings (`UpstreamSettings`), the pooled HTTP/2
// client (`UpstreamClient`) and the clients of a running server (`UpstreamRelayService`).
// Judging requests is not done here: the server's answer flow keeps the core's verdict beside
// the upstream's answer.

/// An upstream APNs: the host and port requests are relayed to.
package struct UpstreamEndpoint: Sendable, Equatable {
    /// A host name or an IP address (an IPv6 address without its brackets).
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Apple's development (sandbox) provider API.
    package static let sandbox = UpstreamEndpoint(host: "api.sandbox.push.apple.com", port: 443)
    /// Apple's production provider API.
    package static let production = UpstreamEndpoint(host: "api.push.apple.com", port: 443)

    /// `https://host[:port]`, as a user writes it (port 443 left out; an IPv6 address in brackets).
    package var origin: String { "https://" + authority }

    /// The `:authority` of requests sent here: `host[:port]`, port 443 left out.
    package var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    /// `sandbox`, `production`, or an `https://host[:port]` URL (with at most a `/` after it).
    package static func parse(_ text: String) throws(UpstreamEndpointError) -> UpstreamEndpoint {
        switch text {
        case "sandbox": return .sandbox
        case "production": return .production
        default: break
        }
        if text.hasPrefix("http://") {
            throw UpstreamEndpointError(text, "APNs is TLS only: use https://")
        }
        guard text.hasPrefix("https://") else {
            throw UpstreamEndpointError(text, "expected sandbox, production or an https://host[:port] URL")
        }
        var rest = Substring(text.dropFirst("https://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            throw UpstreamEndpointError(text, "a path, query or fragment is not taken: the URL names a host and a port only")
        }
        if rest.contains("@") { throw UpstreamEndpointError(text, "user information is not taken") }
        if rest.contains(where: { $0 == " " || $0 == "\t" }) { throw UpstreamEndpointError(text, "a URL has no spaces") }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw UpstreamEndpointError(text, "an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw UpstreamEndpointError(text, "expected :port after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw UpstreamEndpointError(text, "the host is missing") }
        var port = 443
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw UpstreamEndpointError(text, "the port must be 1 to 65535, not \"\(portText)\"")
            }
            port = value
        }
        return UpstreamEndpoint(host: String(host), port: port)
    }

    /// Apple's channel management host for `sandbox` and `production` (ports as APNSwift has
    /// them: 2195 and 2196); `nil` for a URL, whose management API must be named.
    package static func channelManagement(for text: String) -> UpstreamEndpoint? {
        switch text {
        case "sandbox": UpstreamEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)
        case "production": UpstreamEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)
        default: nil
        }
    }
}

/// Why an upstream could not be read: what was given and what is expected.
package struct UpstreamEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    package var given: String
    package var problem: String

    package init(_ given: String, _ problem: String) {
        self.given = given
        self.problem = problem
    }

    package var description: String { "\"\(given)\": \(problem)" }
}
