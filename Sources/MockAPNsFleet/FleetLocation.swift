import PostgresNIO

/// Where a fleet keeps its state: a PostgreSQL server, named by a libpq-style URL
/// (`postgresql://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`), as
/// `serve --state` takes it.
package struct FleetLocation: Sendable, Equatable {
    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    /// libpq's `sslmode`: `disable` (the default here, since the usual server is a sidecar or
    /// a loopback one), `prefer` or `require`.
    package var sslMode: SSLMode

    package enum SSLMode: String, Sendable, CaseIterable {
        case disable, prefer, require
    }

    /// Reads `url`, or says what is wrong with it.
    package init(url: String) throws(FleetLocationError) {
        let schemes = ["postgresql://", "postgres://"]
        guard let scheme = schemes.first(where: { url.hasPrefix($0) }) else {
            throw FleetLocationError("a PostgreSQL URL starts with postgresql:// (got \(Self.redacted(url)))")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw FleetLocationError("the URL names no database: postgresql://user@host:port/DATABASE")
        }
        let database = String(rest[rest.index(after: slash)...])
        var authority = rest[..<slash]
        guard !database.isEmpty else {
            throw FleetLocationError("the URL names no database: postgresql://user@host:port/DATABASE")
        }
        var user = "postgres"
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = String(credentials[..<colon]).removingPercentEncoding ?? String(credentials[..<colon])
                let secret = credentials[credentials.index(after: colon)...]
                password = String(secret).removingPercentEncoding ?? String(secret)
            } else {
                user = String(credentials).removingPercentEncoding ?? String(credentials)
            }
        }
        var host = String(authority)
        var port = 5432
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            host = String(authority[..<colon])
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(number) else {
                throw FleetLocationError("the URL's port must be a number from 1 to 65535")
            }
            port = number
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw FleetLocationError("the URL names no host") }
        var sslMode = SSLMode.disable
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == "sslmode" else {
                throw FleetLocationError("the URL's only query parameter is sslmode (got \(pair))")
            }
            guard let mode = SSLMode(rawValue: String(parts[1])) else {
                throw FleetLocationError("sslmode is one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            sslMode = mode
        }
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.sslMode = sslMode
    }

    /// The URL as logs and pages may show it: without its password.
    package var description: String {
        "postgresql://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// `url` with any password replaced, for error messages.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let colon = url[..<at].lastIndex(of: ":"),
              url[..<colon].contains("//")
        else { return url }
        return String(url[...colon]) + "***" + String(url[at...])
    }

    /// A connection's configuration, with a short connect timeout so an absent server is
    /// noticed within a second or two.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls
        )
        configuration.options.connectTimeout = .seconds(2)
        return configuration
    }
}

/// A `--state` URL that cannot be used, and why.
package struct FleetLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
