import MockAPNsCore

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

        /// `localhost`, `::1`, and every `127.x.x.x` address.
        static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
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
