import MockAPNsCore

/// The APNs environments a server plays, as a configuration file and the command line name
/// them (`MockAPNsConfiguration.environments` is the Swift API's): one, or both at once, each with its own listeners
/// (HTTP/2 provider API, legacy gateway and feedback, channel management) over one device
/// registry, so a test can send a sandbox token to the production host and see what a
/// provider meets when it mixes them up: `400 BadDeviceToken`.
package enum ServerEnvironment: String, CaseIterable, Sendable, Hashable {
    /// `api.sandbox.push.apple.com`: development builds.
    case sandbox
    /// `api.push.apple.com`: App Store, TestFlight and ad-hoc builds.
    case production
    /// Both: the configured ports serve the sandbox, `productionPorts` the production
    /// environment. Each device token belongs to the environment its first push reached,
    /// unless the control API, a scenario or the Swift API said otherwise.
    case both

    /// The environments played, sandbox first.
    package var environments: [APNsEnvironment] {
        switch self {
        case .sandbox: [.sandbox]
        case .production: [.production]
        case .both: [.sandbox, .production]
        }
    }

    /// The environment the configured ports serve, and the default for what names none (a
    /// channel seeded without one, a development client certificate to suggest).
    package var primary: APNsEnvironment {
        switch self {
        case .sandbox, .both: .sandbox
        case .production: .production
        }
    }
}

extension MockAPNsConfiguration {
    /// The production listeners' ports when the server plays both environments (the
    /// configured `http2Port`, `legacy` and `broadcast.managePort` ports serve the sandbox).
    /// `0` (the default) picks a free port; `mockapns serve` uses 100 above the sandbox's
    /// defaults (2297, 2295, 2296, 2299).
    package struct ProductionPorts: Sendable, Equatable {
        package var http2: Int = 0
        package var gateway: Int = 0
        package var feedback: Int = 0
        /// Used when the sandbox runs a channel management listener (`broadcast.managePort`).
        package var channelManagement: Int = 0

        package init(http2: Int = 0, gateway: Int = 0, feedback: Int = 0, channelManagement: Int = 0) {
            self.http2 = http2
            self.gateway = gateway
            self.feedback = feedback
            self.channelManagement = channelManagement
        }

        /// `mockapns serve`'s production ports: Apple's (and MockAPNs' management port) plus 100.
        package static let commandLineDefaults = ProductionPorts(http2: 2297, gateway: 2295, feedback: 2296, channelManagement: 2299)

        /// Reads the `productionPorts` section:
        ///
        /// ```json
        /// "productionPorts": { "http2": 2297, "gateway": 2295, "feedback": 2296, "channelManagement": 2299 }
        /// ```
        mutating func read(_ reader: inout JSONObjectReader) throws(JSONFileError) {
            if let port = try reader.integer("http2", in: 0...65535) { http2 = Int(port) }
            if let port = try reader.integer("gateway", in: 0...65535) { gateway = Int(port) }
            if let port = try reader.integer("feedback", in: 0...65535) { feedback = Int(port) }
            if let port = try reader.integer("channelManagement", in: 0...65535) { channelManagement = Int(port) }
            try reader.finish(allowed: ["http2", "gateway", "feedback", "channelManagement"])
        }
    }

    /// The ports the listeners of `environment` bind: the configured ones for the primary
    /// environment, `productionPorts` for production on a server playing both. A `nil`
    /// management port means no management listener.
    func listenerPorts(for environment: APNsEnvironment) -> (http2: Int, gateway: Int, feedback: Int, channelManagement: Int?) {
        if self.environment == .both, environment == .production {
            return (productionPorts.http2, productionPorts.gateway, productionPorts.feedback,
                    broadcast.managePort == nil ? nil : productionPorts.channelManagement)
        }
        return (http2Port, legacy.gatewayPort, legacy.feedbackPort, broadcast.managePort)
    }
}

extension MockAPNsConfiguration {
    /// A listener's name for logs and errors: with the environment when the server plays both.
    func listenerName(_ name: String, _ environment: APNsEnvironment) -> String {
        self.environment == .both ? "\(name) (\(environment.rawValue))" : name
    }

    /// Where a listener's port is set: the production flag and key for production on a server
    /// playing both, else `primary`.
    func portSetting(_ primary: String, production: String, _ environment: APNsEnvironment) -> String {
        self.environment == .both && environment == .production ? production : primary
    }
}
