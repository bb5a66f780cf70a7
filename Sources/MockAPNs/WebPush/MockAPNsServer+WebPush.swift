import MockAPNsConnections
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import MockAPNsWebPush
import NIOCore
import NIOPosix

extension MockAPNsServer {
    /// Binds the web push listener on `port` (`nil`: none): the provider API's certificate,
    /// ALPN `h2` or `http/1.1` (a client offering none speaks HTTP/1.1), no client
    /// certificate (VAPID identifies the application server), the shared connection pipeline.
    /// Sets the endpoint origin once the port is known.
    func startWebPush(
        services provider: HTTP2ConnectionServices, guarding guardLimits: ConnectionGuardHandler.Limits, port: Int?,
        group: any EventLoopGroup
    ) async throws -> (any Channel)? {
        guard let port else { return nil }
        let name = "web push"
        var services = provider
        services.role = .webPush
        services.requiresAuthentication = false
        services.broadcasts = nil
        services.channelManagement = nil
        services.churn = nil
        services.webPush = WebPushService(
            decider: WebPushDecider(subscriptions: webPushSubscriptions, options: configuration.webPush.options, clock: clock),
            endpoint: webPushEndpoint, clock: clock, maximumPayloadBytes: configuration.webPush.options.maximumPayloadBytes,
            http1Limits: .init(headerSeconds: configuration.timeouts.webPushHeaderSeconds, bodySeconds: configuration.timeouts.webPushBodySeconds,
                               idleSeconds: configuration.timeouts.webPushIdleSeconds, bodyLimit: configuration.webPush.options.maximumPayloadBytes),
            sessions: sessions
        )
        let tls = try OpenSSLContext(configuration: makeWebPushTLSConfiguration())
        let webPushServices = services
        let journal = observation.journal
        let bootstrap = ListenerBootstrap.serving(
            ListenerBootstrap.make(group, listener: name, journal: journal, logger: logger),
            .init(tracker: connections, transport: .webPush, tls: tls, scenarios: scenarios, journal: journal,
                  limits: guardLimits, listener: name, logger: logger)
        ) { scenarioConnection, recorder in
            WebPushProtocolSelector(services: webPushServices, scenarioConnection: scenarioConnection, recorder: recorder)
        }
        let listener = try await ListenerBindFailed.binding(
            "web push endpoint", host: configuration.host, port: port, portFlag: "--web-push-port (webPush.port)"
        ) {
            try await bootstrap.bind(host: configuration.host, port: port).get()
        }
        let bound = listener.localAddress?.port ?? port
        webPushEndpoint.set(configuration.webPush.endpointOrigin ?? "https://\(Self.originHost(configuration.host)):\(bound)")
        return listener
    }

    /// The host as an origin names it: an IPv6 literal in brackets, the unspecified addresses
    /// as loopback (a client cannot send to 0.0.0.0).
    static func originHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::": return "[::1]"
        default: return host.contains(":") ? "[\(host)]" : host
        }
    }

    func makeWebPushTLSConfiguration() -> TLSConfiguration {
        TLSConfiguration(
            certificateChain: [.file(configuration.certificateFile(configuration.tls.certificateChain, default: "server.pem"))],
            privateKey: .file(configuration.certificateFile(configuration.tls.privateKey, default: "server-key.pem")),
            alpn: .select(["h2", "http/1.1"]),
            clientCertificate: .none,
            minimumVersion: .tlsv12,
            keyLogFile: ProcessEnvironment.value(of: "SSLKEYLOGFILE"),
            alpnRefusalExplanation: "the web push endpoint speaks HTTP/2 (h2) and HTTP/1.1 (http/1.1)",
            versionRefusalAdvice: "Apple's web push endpoint requires TLS 1.2 or later",
            untrustedServerAdvice: configuration.untrustedServerAdvice,
            sslRefusalAdvice: "Apple's web push endpoint never accepted it"
        )
    }
}

// MARK: Subscriptions, for Swift tests

extension MockAPNsServer {
    /// Subscribes a browser to push, as `pushManager.subscribe({applicationServerKey})` does on
    /// a page: MockAPNs makes the browser's keys and keeps the private half, so it can read
    /// what is sent. Returns what `PushSubscription.toJSON()` gives the page; hand it to the
    /// application server.
    ///
    /// - Parameter applicationServerKey: the VAPID public key as a page passes it: base64url
    ///   (or base64) of the 65-byte uncompressed P-256 point.
    /// - Throws: an error saying what was wrong when the key is not one, or the server has no
    ///   web push listener.
    public func subscribeWebPush(applicationServerKey: String) throws -> WebPushSubscriptionInfo {
        try makeWebPushSubscription(applicationServerKey: applicationServerKey)
    }

    /// `subscribeWebPush`, with its error's type (the control API names it in its answer).
    package func makeWebPushSubscription(applicationServerKey: String) throws(WebPushSubscriptionError) -> WebPushSubscriptionInfo {
        try makeWebPushSubscription(applicationServerKey: applicationServerKey, session: nil)
    }

    /// A subscription that belongs to `session` (`nil`: the server's).
    package func makeWebPushSubscription(
        applicationServerKey: String, session: String?
    ) throws(WebPushSubscriptionError) -> WebPushSubscriptionInfo {
        guard configuration.webPush.port != nil else {
            throw WebPushSubscriptionError(description: "the server has no web push listener (configuration.webPushPort is nil)")
        }
        do {
            let subscription = try webPushSubscriptions.create(
                applicationServerKey: applicationServerKey, now: clock.millisecondsSince1970, session: session)
            publishToFleet(subscription)
            return WebPushSubscriptionInfo(subscription, origin: webPushEndpoint.origin)
        } catch {
            throw WebPushSubscriptionError(description: error.description)
        }
    }

    /// Every subscription, oldest first.
    public var webPushSubscriptionList: [WebPushSubscriptionInfo] {
        let origin = webPushEndpoint.origin
        return webPushSubscriptions.all.map { WebPushSubscriptionInfo($0, origin: origin) }
    }

    /// Expires a subscription (the browser let it lapse): pushes to it get Apple's answer for
    /// a gone subscription (`configuration.webPush` says which). Returns whether it existed.
    @discardableResult
    public func expireWebPushSubscription(_ id: String) -> Bool {
        webPushSubscriptions.expire(id: id, at: clock.millisecondsSince1970)
    }

    /// Forgets a subscription: later pushes to it are answered as for one never made.
    /// Returns whether it existed.
    @discardableResult
    public func forgetWebPushSubscription(_ id: String) -> Bool {
        webPushSubscriptions.remove(id: id)
    }

    /// Revokes a subscription (the person removed the site's permission): as `expire...`, for
    /// the other cause. Returns whether it existed.
    @discardableResult
    public func revokeWebPushSubscription(_ id: String) -> Bool {
        webPushSubscriptions.revoke(id: id, at: clock.millisecondsSince1970)
    }
}
