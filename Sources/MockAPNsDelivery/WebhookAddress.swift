import MockAPNsCore
/// Where the webhook forwarder POSTs delivered notifications: an `http://host[:port][/path]`
/// URL. Plain HTTP only (MockAPNs' choice): the receivers are a developer's local test
/// servers, and a mock that must never carry a secret has no reason to dial out over TLS.
package struct WebhookAddress: Sendable, Equatable {
    package var host: String
    package var port: Int
    /// Starts with `/`; the query, if any, included.
    package var path: String

    /// The address `url` names, or `nil` when it is not a usable `http://` URL
    /// (`problem(with:)` says why).
    package init?(_ url: String) {
        guard Self.problem(with: url) == nil, let parts = Self.split(url) else { return nil }
        self = parts
    }

    /// What is wrong with `url`, in plain words; `nil` when it is usable.
    package static func problem(with url: String) -> String? {
        guard url.hasPrefix("http://") else {
            if url.hasPrefix("https://") {
                return "expected an http:// URL: the webhook forwarder speaks plain HTTP to a local receiver, not \"\(url.prefix(200))\""
            }
            return "expected an http:// URL such as http://127.0.0.1:8080/push, not \"\(url.prefix(200))\""
        }
        guard let parts = split(url) else {
            return "expected http://host[:port][/path] with a host and a port from 1 to 65535, not \"\(url.prefix(200))\""
        }
        if parts.host.contains(where: { $0 == "@" || $0 == " " }) {
            return "the webhook URL must not carry credentials or spaces: \"\(url.prefix(200))\""
        }
        return nil
    }

    private init(host: String, port: Int, path: String) {
        self.host = host
        self.port = port
        self.path = path
    }

    private static func split(_ url: String) -> WebhookAddress? {
        let rest = url.dropFirst("http://".count)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.first == "?" { path = "/" + path }
        guard path.allSatisfy({ $0.isASCII && $0 != " " && $0 != "\r" && $0 != "\n" }) else { return nil }
        var host = authority
        var port = 80
        if authority.first == "[" {
            // An IPv6 literal: [::1]:8080
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":", let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = authority[..<colon]
            port = number
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        return WebhookAddress(host: String(host), port: port, path: path)
    }

    /// The `Host` header's value.
    package var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }
}
