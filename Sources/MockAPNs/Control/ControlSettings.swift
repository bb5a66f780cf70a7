import MockAPNsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension MockAPNsConfiguration {
    /// The control API: plain HTTP/1.1 JSON for tests and tools (`control` in a configuration
    /// file). It has no authentication, so it binds loopback unless told otherwise.
    public struct ControlSettings: Sendable, Equatable {
        /// The port; `0` picks a free one; `nil` runs no control API. `mockapns serve` uses
        /// 2198 unless told otherwise; an embedded server runs none unless asked.
        public var port: Int? = nil
        /// The address it binds: loopback by default.
        public var host: String = "127.0.0.1"
        /// Binding an address other than loopback must be asked for explicitly: anyone who
        /// reaches the port can change the server's behaviour.
        public var allowsNonLoopbackHost: Bool = false

        public init() {}

        static let fileKeys = ["port", "host", "allowNonLoopback"]

        /// Reads the `control` object of a configuration file over these values.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let value = try object.integer("port", in: 0...65535) { port = Int(value) }
            if let value = try object.string("host") { host = value }
            if let value = try object.bool("allowNonLoopback") { allowsNonLoopbackHost = value }
            try object.finish(allowed: Self.fileKeys)
        }

        /// Refuses a non-loopback host that was not explicitly allowed.
        public func checkHost() throws(ControlHostRefused) {
            guard allowsNonLoopbackHost || Self.isLoopback(host) else {
                throw ControlHostRefused(host: host)
            }
        }

        /// `localhost`, and the addresses of the loopback networks: IPv4 `127.0.0.0/8`, IPv6
        /// `::1`, and IPv4 loopback mapped into IPv6 (`::ffff:127.0.0.1`). The text is parsed
        /// as an address, so a name such as `127.attacker.example` is not loopback.
        static func isLoopback(_ host: String) -> Bool {
            if host == "localhost" { return true }
            var address = Substring(host)
            if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
            if let ipv4 = IPv4Literal(address) { return ipv4.octets[0] == 127 }
            guard let ipv6 = IPv6Literal(address) else { return false }
            let octets = ipv6.octets
            let loopback = octets[0..<15].allSatisfy { $0 == 0 } && octets[15] == 1
            let mappedIPv4 = octets[0..<10].allSatisfy { $0 == 0 } && octets[10] == 0xff && octets[11] == 0xff
            return loopback || (mappedIPv4 && octets[12] == 127)
        }
    }
}

/// The control API was asked to bind an address other than loopback without permission.
public struct ControlHostRefused: Error, Sendable, CustomStringConvertible {
    public var host: String
    public var description: String {
        "the control API has no authentication and binds loopback only; to bind \(host) anyway, "
            + "pass --control-allow-remote (config: control.allowNonLoopback = true)"
    }
}

/// The control API could not listen on its address (typically: the port is in use).
public struct ControlBindFailed: Error, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var reason: String
    public var description: String {
        "the control API cannot listen on \(host):\(port): \(reason); choose another with --control-port (0 picks a free one) or turn it off with --no-control"
    }
}

/// A dotted-quad IPv4 address, parsed the way the system parses it (`inet_pton`).
struct IPv4Literal {
    var octets: [UInt8]

    init?(_ text: Substring) {
        var address = in_addr()
        guard inet_pton(AF_INET, String(text), &address) == 1 else { return nil }
        octets = withUnsafeBytes(of: &address) { Array($0) }
    }
}

/// An IPv6 address (any of its textual forms), parsed by `inet_pton`.
struct IPv6Literal {
    var octets: [UInt8]

    init?(_ text: Substring) {
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(text), &address) == 1 else { return nil }
        octets = withUnsafeBytes(of: &address) { Array($0) }
    }
}
