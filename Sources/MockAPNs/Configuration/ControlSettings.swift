import MockAPNsControl
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
    /// file). It binds loopback unless told otherwise; see `ControlAccessPolicy` for what it
    /// checks of every request.
    package struct ControlSettings: Sendable, Equatable {
        /// The port; `0` picks a free one; `nil` runs no control API. `mockapns serve` uses
        /// 2198 unless told otherwise; an embedded server runs none unless asked.
        package var port: Int? = nil
        /// The address it binds: loopback by default.
        package var host: String = "127.0.0.1"
        /// Binding an address other than loopback must be asked for explicitly: anyone who
        /// reaches the port can change the server's behaviour. Requests from other machines
        /// must then carry `token`.
        package var allowsNonLoopbackHost: Bool = false
        /// Names and addresses the `Host` header may carry besides loopback ones and `host`.
        package var allowedHosts: [String] = []
        /// Origins (`http://localhost:3000`) whose pages may call the API besides its own.
        package var allowedOrigins: [WebOrigin] = []
        /// The bearer token requests from other machines must carry. With
        /// `allowsNonLoopbackHost` and no token, the server generates one
        /// (`MockAPNsServer.controlToken`).
        package var token: BearerToken? = nil

        /// The defaults: no control API in an embedded server, loopback only.
        package init() {}

        static let fileKeys = ["port", "host", "allowNonLoopback", "allowedHosts", "allowedOrigins", "token"]

        /// Reads the `control` object of a configuration file over these values.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let value = try object.integer("port", in: 0...65535) { port = Int(value) }
            if let value = try object.string("host") { host = value }
            if let value = try object.bool("allowNonLoopback") { allowsNonLoopbackHost = value }
            if let names = try object.array("allowedHosts") {
                allowedHosts = try names.map { (path, node) throws(JSONFileError) in
                    guard case .string(let name) = node.value, let host = HostHeader(name), host.port == nil else {
                        throw JSONFileError(path: path, position: node.position,
                                            message: "expected a host name or address without a port, like \"mockapns.local\"")
                    }
                    return name
                }
            }
            if let texts = try object.array("allowedOrigins") {
                allowedOrigins = try texts.map { (path, node) throws(JSONFileError) in
                    guard case .string(let text) = node.value, let origin = WebOrigin(text) else {
                        throw JSONFileError(path: path, position: node.position,
                                            message: "expected an origin like \"http://localhost:3000\" (scheme, host and optional port; no path)")
                    }
                    return origin
                }
            }
            if let node = object.node("token") {
                guard case .string(let text) = node.value else {
                    throw JSONFileError(path: object.path(of: "token"), position: node.position,
                                        message: "expected a string, found \(node.value.kindDescription)")
                }
                do {
                    token = try BearerToken(text)
                } catch {
                    throw object.invalid("token", node, error.description)
                }
            }
            try object.finish(allowed: Self.fileKeys)
        }

        /// Refuses a non-loopback host that was not explicitly allowed.
        package func checkHost() throws(ControlHostRefused) {
            guard allowsNonLoopbackHost || IPAddressLiteral.isLoopback(host) else {
                throw ControlHostRefused(host: host)
            }
        }

        /// The dashboard's address on `port`, as a browser on this machine opens it. The
        /// unspecified address a wildcard bind uses (`0.0.0.0`, `::`) reaches no host when
        /// typed into a browser's address bar, and the API answers that name 421 anyway: the
        /// loopback address of its family stands in, which the listener also serves. An IPv6
        /// address gets its brackets.
        package func dashboardAddress(port: Int) -> String {
            guard let address = IPAddressLiteral(host) else { return "http://\(host):\(port)/" }
            let shown: String
            switch address {
            case .v4: shown = address.isUnspecified ? "127.0.0.1" : host
            case .v6: shown = address.isUnspecified ? "[::1]" : (host.hasPrefix("[") ? host : "[\(host)]")
            }
            return "http://\(shown):\(port)/"
        }

        /// Whether the API listens on every address (`0.0.0.0`, `::`), so that from another
        /// machine it is reached under this machine's own address rather than the printed one.
        package var listensOnEveryAddress: Bool {
            IPAddressLiteral(host)?.isUnspecified ?? false
        }

        /// What the control API checks of each request, from these settings.
        func accessPolicy(token: BearerToken?) -> ControlAccessPolicy {
            ControlAccessPolicy(listenHost: host, allowedHosts: allowedHosts, allowedOrigins: allowedOrigins, token: token)
        }
    }
}

/// The control API was asked to bind an address other than loopback without permission.
package struct ControlHostRefused: Error, Sendable, CustomStringConvertible {
    package var host: String
    package var description: String {
        "the control API binds loopback only unless told otherwise; to bind \(host), pass --control-allow-remote "
            + "(config: control.allowNonLoopback = true): requests from other machines must then carry a bearer token"
    }
}

/// The control API could not listen on its address (typically: the port is in use).
package struct ControlBindFailed: Error, Sendable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var reason: String
    package var description: String {
        "the control API cannot listen on \(host):\(port): \(reason); choose another with --control-port (0 picks a free one) or turn it off with --no-control"
    }
}
