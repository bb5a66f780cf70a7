import MockAPNsCore
/// A `Host` header (RFC 9110, section 7.2): a name or address, and an optional port.
package struct HostHeader: Sendable, Equatable {
    /// The name or address as sent, without the port; an IPv6 address keeps its brackets.
    package var name: String
    package var port: Int?

    /// Parses `name`, `name:port`, `[v6]`, `[v6]:port`, and a bare IPv6 address (`::1`, which
    /// no URL produces but some tools send). `nil` for anything else: a Host header no
    /// browser would send (spaces, a path, user information, an empty name).
    package init?(_ text: String) {
        let rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let bracketed = text[...close]
            guard case .v6? = IPAddressLiteral(bracketed) else { return nil }
            name = String(bracketed)
            rest = text[text.index(after: close)...]
        } else if text.filter({ $0 == ":" }).count > 1 {
            guard case .v6? = IPAddressLiteral(text) else { return nil }
            name = text
            rest = ""
        } else {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = parts.first, !first.isEmpty,
                  first.utf8.allSatisfy({ Self.isNameByte($0) })
            else { return nil }
            name = String(first)
            rest = text[first.endIndex...]
        }
        if rest.isEmpty {
            port = nil
            return
        }
        let digits = rest.dropFirst()
        guard rest.first == ":", !digits.isEmpty, digits.count <= 5, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = Int(digits), value <= 65535
        else { return nil }
        port = value
    }

    /// Letters, digits, `-`, `.` and `_`: what host names (and IPv4 addresses) are made of.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

/// A web origin (RFC 6454): scheme, host and port, as a browser sends it in `Origin`.
package struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    package var scheme: String
    /// The host, normalized (`HostName.normalized`).
    package var host: String
    /// The port, the scheme's default (80, 443) when none was written.
    package var port: Int

    /// Parses `http://name[:port]` or `https://...` (a trailing `/` is tolerated, as users
    /// copy origins from the address bar); `nil` for anything else, `null` included.
    package init?(_ text: String) {
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("http://") {
            scheme = "http"
        } else if lowered.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        var authority = String(text.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard let host = HostHeader(authority) else { return nil }
        self.init(scheme: scheme, host: host)
    }

    /// The origin of a page loaded from `host` over `scheme`.
    package init(scheme: String, host: HostHeader) {
        self.scheme = scheme
        self.host = HostName.normalized(host.name)
        self.port = host.port ?? (scheme == "https" ? 443 : 80)
    }

    package var description: String {
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port)"
    }
}
