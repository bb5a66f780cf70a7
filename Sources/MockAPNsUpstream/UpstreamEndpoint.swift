// Upstream mode (`mockapns serve --upstream`): MockAPNs in front of the real APNs. Here: where
// the upstream is (`UpstreamEndpoint`), the settings (`UpstreamSettings`), the pooled HTTP/2
// client (`UpstreamClient`) and the clients of a running server (`UpstreamRelayService`).
// Judging requests is not done here: the server's answer flow keeps the core's verdict beside
// the upstream's answer.

import NIOCore

/// An upstream APNs: the host and port requests are relayed to.
package struct UpstreamEndpoint: Sendable, Equatable {
    /// A host name or an IP address (an IPv6 address without its brackets).
    package var host: String
    /// The TCP port, 1 to 65535.
    package var port: Int

    /// An endpoint at `host` (an IPv6 address without brackets) and `port`, taken as given.
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

    /// What a user may write, as errors say it.
    static let expected = "expected sandbox, production or https://host[:port]"

    /// `sandbox`, `production`, or an `https://host[:port]` URL: the host an IPv4 address,
    /// an IPv6 address in brackets or a DNS name; the port 1 to 65535 (443 when left out);
    /// nothing after it but an optional `/` (no path, query, fragment or user information).
    package static func parse(_ text: String) throws(UpstreamEndpointError) -> UpstreamEndpoint {
        switch text {
        case "sandbox": return .sandbox
        case "production": return .production
        default: break
        }
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") {
            throw UpstreamEndpointError(text, "APNs is TLS only (HTTP/2 over TLS): write https://, not http://")
        }
        guard lowered.hasPrefix("https://") else {
            throw UpstreamEndpointError(text, "not a word or URL taken here; \(expected)")
        }
        var rest = Substring(text.dropFirst("https://".count))
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            throw UpstreamEndpointError(text, "a query or fragment (\"\(rest[query...])\") is not taken; \(expected)")
        }
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[slash...]
            guard path == "/" else {
                throw UpstreamEndpointError(text, "a path (\"\(path)\") is not taken: requests keep their own; \(expected)")
            }
            rest = rest[..<slash]
        }
        if rest.contains("@") {
            throw UpstreamEndpointError(text, "user information (before @) is not taken; \(expected)")
        }
        let host: String
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw UpstreamEndpointError(text, "an IPv6 address needs its closing ]; expected https://[address]:port")
            }
            let address = String(rest[rest.index(after: rest.startIndex)..<close])
            guard address.contains(":"), !address.contains("%"), (try? SocketAddress(ipAddress: address, port: 0)) != nil else {
                throw UpstreamEndpointError(text, "\"\(address)\" is not an IPv6 address (zone IDs are not taken); expected https://[address]:port")
            }
            host = address
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw UpstreamEndpointError(text, "expected :port or nothing after the IPv6 address, not \"\(after)\"")
                }
                portText = after.dropFirst()
            }
        } else {
            let name: Substring
            if let colon = rest.firstIndex(of: ":") {
                name = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                name = rest
            }
            guard !name.isEmpty else { throw UpstreamEndpointError(text, "the host is missing; \(expected)") }
            host = try Self.host(name, in: text)
        }
        var port = 443
        if let portText {
            // Digits only, no more than five: `Int` alone would take "+443".
            guard portText.count <= 5, !portText.isEmpty, portText.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
                  let value = Int(portText), (1...65535).contains(value)
            else {
                throw UpstreamEndpointError(text, "the port must be a number from 1 to 65535, not \"\(portText)\"")
            }
            port = value
        }
        return UpstreamEndpoint(host: host, port: port)
    }

    /// A host that is not in brackets: an IPv4 address (dotted decimal, each part 0 to 255)
    /// or a DNS name (labels of letters, digits and hyphens, none starting or ending with a
    /// hyphen), lowercased.
    private static func host(_ name: Substring, in text: String) throws(UpstreamEndpointError) -> String {
        let isDigit: (UInt8) -> Bool = { $0 &- UInt8(ascii: "0") < 10 }
        if name.utf8.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }) {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts.allSatisfy({ (1...3).contains($0.count) && (Int($0) ?? 256) <= 255 }) else {
                throw UpstreamEndpointError(text, "\"\(name)\" is not an IPv4 address (four numbers from 0 to 255); \(expected)")
            }
            return String(name)
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let isLabel: (Substring) -> Bool = { label in
            (1...63).contains(label.utf8.count)
                && label.utf8.allSatisfy { byte in
                    isDigit(byte) || (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte == UInt8(ascii: "-")
                }
                && label.utf8.first != UInt8(ascii: "-") && label.utf8.last != UInt8(ascii: "-")
        }
        guard name.utf8.count <= 253, labels.allSatisfy(isLabel) else {
            throw UpstreamEndpointError(
                text, "\"\(name)\" is not a host name (letters, digits and hyphens between dots) or an IP address; \(expected)")
        }
        return name.lowercased()
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
    /// The text as it was given.
    package var given: String
    /// What is wrong with it and what is expected instead.
    package var problem: String

    /// The error for `given`, saying `problem`.
    package init(_ given: String, _ problem: String) {
        self.given = given
        self.problem = problem
    }

    package var description: String { "\"\(given)\": \(problem)" }
}
