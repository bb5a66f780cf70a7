import MockAPNsConnections
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsTLS
import NIOCore
import NIOPosix

/// The HTTP/2 provider API's listener: TLS with ALPN `h2`, then one `HTTP2ConnectionBridge`
/// per connection.
extension MockAPNsServer {
    /// Binds the HTTP/2 provider API's `port` for the environment `services` play.
    func startHTTP2(
        services: HTTP2ConnectionServices, tls: OpenSSLContext, guarding limits: ConnectionGuardHandler.Limits, port: Int,
        group: any EventLoopGroup
    ) async throws -> any Channel {
        let journal = services.journal
        let name = configuration.listenerName("HTTP/2", services.environment)
        let connections = self.connections
        let scenarios = self.scenarios
        let logger = self.logger
        let http2Bootstrap = ListenerBootstrap.serving(
            ListenerBootstrap.make(group, listener: name, journal: journal, logger: logger, backlog: 1024)
                .childChannelOption(.maxMessagesPerRead, value: 16),
            .init(tracker: connections, transport: .http2, tls: tls, scenarios: scenarios, journal: journal,
                  limits: limits, listener: name, logger: logger)
        ) { scenarioConnection, recorder in
            // The bridge starts HTTP/2 once TLS tells it how the client authenticates.
            HTTP2ConnectionBridge(services: services, scenarioConnection: scenarioConnection, recorder: recorder)
        }
        return try await ListenerBindFailed.binding(
            configuration.listenerName("HTTP/2 provider API", services.environment), host: configuration.host, port: port,
            portFlag: configuration.portSetting(
                "--http2-port (http2.port)", production: "--production-http2-port (productionPorts.http2)", services.environment)
        ) {
            try await http2Bootstrap.bind(host: configuration.host, port: port).get()
        }
    }

    func makeHTTP2TLSConfiguration() -> TLSConfiguration {
        TLSConfiguration(
            certificateChain: [.file(configuration.certificateFile(configuration.tls.certificateChain, default: "server.pem"))],
            privateKey: .file(configuration.certificateFile(configuration.tls.privateKey, default: "server-key.pem")),
            alpn: configuration.http2.acceptsClientsWithoutALPN ? .select(["h2"]) : .require(["h2"]),
            clientCertificate: .request,
            trustRootsPEM: [.file(configuration.certificateFile(configuration.tls.clientTrustRoots, default: "ca.pem"))],
            minimumVersion: .tlsv12,
            keyLogFile: ProcessEnvironment.value(of: "SSLKEYLOGFILE"),
            alpnRefusalExplanation: "APNs requires HTTP/2 (h2)",
            versionRefusalAdvice: "APNs requires TLS 1.2 or later on the provider API; no setting allows older versions here",
            untrustedServerAdvice: configuration.untrustedServerAdvice,
            sslRefusalAdvice: "Apple's provider API never accepted it (TLS 1.2 or later since it opened in 2015)"
        )
    }

    /// What Apple's GOAWAY frames carry: the JSON body of the reason for a shutdown and an
    /// idle timeout, and the plain text seen with its stream-limit GOAWAY (2016).
    static let appleGoAwayDebugData = GoAwayDebugData(
        shutdown: HTTP2ResponseRenderer.errorBody(reason: .shutdown, timestamp: nil),
        idleTimeout: HTTP2ResponseRenderer.errorBody(reason: .idleTimeout, timestamp: nil),
        streamLimit: Array("Maximum active streams violated for this endpoint.".utf8)
    )

    func makeHTTP2Settings() -> HTTP2ServerConfiguration {
        var settings = HTTP2ServerConfiguration()
        settings.maxConcurrentStreams = UInt32(clamping: configuration.http2.maxConcurrentStreams)
        settings.idleTimeout = configuration.http2.idleTimeoutSeconds.map { .nanoseconds(Int64($0 * 1_000_000_000)) }
        settings.headerListOverflow = configuration.http2.headerListOverflow
        settings.goAwayDebugData = Self.appleGoAwayDebugData
        return settings
    }
}
