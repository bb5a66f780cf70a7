import MockAPNsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address written as text, parsed the way the system parses it
/// (`inet_pton`), so `127.attacker.example` or `127.0.0.1.attacker.example` is a name, never an
/// address.
package enum IPAddressLiteral: Sendable, Hashable {
    case v4([UInt8])
    case v6([UInt8])

    /// Parses `text`; IPv6 may be in brackets (`[::1]`, as in a URL or a Host header).
    package init?<Text: StringProtocol>(_ text: Text) {
        var address = Substring(text)
        if address.hasPrefix("["), address.hasSuffix("]") {
            address = address.dropFirst().dropLast()
            guard let octets = Self.octets(String(address), family: AF_INET6, size: 16) else { return nil }
            self = .v6(octets)
            return
        }
        if let octets = Self.octets(String(address), family: AF_INET, size: 4) {
            self = .v4(octets)
        } else if let octets = Self.octets(String(address), family: AF_INET6, size: 16) {
            self = .v6(octets)
        } else {
            return nil
        }
    }

    /// Whether this is a loopback address: IPv4 `127.0.0.0/8`, IPv6 `::1`, or IPv4 loopback
    /// mapped into IPv6 (`::ffff:127.0.0.1`).
    package var isLoopback: Bool {
        switch self {
        case .v4(let octets):
            return octets[0] == 127
        case .v6(let octets):
            let loopback = octets[0..<15].allSatisfy { $0 == 0 } && octets[15] == 1
            let mappedIPv4 = octets[0..<10].allSatisfy { $0 == 0 } && octets[10] == 0xff && octets[11] == 0xff
            return loopback || (mappedIPv4 && octets[12] == 127)
        }
    }

    /// Whether this is the address that stands for every local address (`0.0.0.0`, `::`):
    /// what a listener binds to be reachable on all of them.
    package var isUnspecified: Bool {
        switch self {
        case .v4(let octets), .v6(let octets): return octets.allSatisfy { $0 == 0 }
        }
    }

    /// Whether `host` names this machine's loopback interface: `localhost` (any case, with or
    /// without a trailing dot) or a loopback address.
    package static func isLoopback(_ host: String) -> Bool {
        if HostName.normalized(host) == "localhost" { return true }
        return IPAddressLiteral(host)?.isLoopback ?? false
    }

    private static func octets(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? bytes : nil
    }
}

/// Host names as the control API compares them.
package enum HostName {
    /// Lowercased, without a final dot (`LocalHost.` is `localhost`); an address is written
    /// in one canonical form (`[0:0::1]` and `::1` are the same), so spellings of one name or
    /// address compare equal.
    package static func normalized(_ host: String) -> String {
        if let address = IPAddressLiteral(host) {
            switch address {
            case .v4(let octets): return octets.map(String.init).joined(separator: ".")
            case .v6(let octets):
                return "[" + stride(from: 0, to: 16, by: 2).map { String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16) }
                    .joined(separator: ":") + "]"
            }
        }
        var name = host.lowercased()
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        return name
    }
}
