import MockAPNsCore

/// Where the server listened: the address and port a captured connection's server side
/// takes, by the connection's protocol and environment. The journal records the client's
/// address, not the listener's, so these come from the server (or its ports file).
package struct CapturePorts: Sendable, Equatable {
    /// One listener.
    package struct Listener: Sendable, Equatable {
        package var transport: Transport
        /// `nil` for the listeners every environment shares (web push).
        package var environment: APNsEnvironment?
        package var port: UInt16

        package init(transport: Transport, environment: APNsEnvironment?, port: UInt16) {
            self.transport = transport
            self.environment = environment
            self.port = port
        }
    }

    package var listeners: [Listener]
    /// The address the listeners bound; `nil` (a host name, or all addresses): the loopback
    /// address of each client's family.
    package var address: CaptureAddress?

    package init(listeners: [Listener], address: CaptureAddress? = nil) {
        self.listeners = listeners
        self.address = address
    }

    /// The ports `mockapns serve` listens on unless told otherwise: Apple's HTTP/2 port 2197,
    /// the gateway 2195, the feedback service 2196, channel management 2199.
    package static let serveDefaults = CapturePorts(listeners: [
        Listener(transport: .http2, environment: nil, port: 2197),
        Listener(transport: .legacy, environment: nil, port: 2195),
        Listener(transport: .feedback, environment: nil, port: 2196),
        Listener(transport: .channelManagement, environment: nil, port: 2199),
    ])

    /// The port of `transport`'s listener for `environment` (or any environment's, when the
    /// connection's is not known or that one has none of its own).
    package func port(of transport: Transport, environment: APNsEnvironment?) -> UInt16? {
        let candidates = listeners.filter { $0.transport == transport }
        return (candidates.first { $0.environment == environment } ?? candidates.first)?.port
    }
}
