import Logging
import MockAPNsTLS
import NIOCore

/// Upstream mode while the server runs: the pooled clients requests are relayed through,
/// one per upstream API and kind of provider credential, made at start and shut down at stop.
///
/// Token providers' requests go through a pool that presents no client certificate (their
/// `authorization` header is forwarded as it is); certificate providers' through one that
/// presents the configured certificate, since a TLS client certificate cannot be forwarded.
/// With no certificate configured, they share the token pool and the upstream answers them
/// as it answers a request without credentials.
package final class UpstreamRelayService: Sendable {
    /// The API a request was made to.
    package enum API: Sendable {
        /// Device pushes and broadcast sends (`api[.sandbox].push.apple.com`).
        case provider
        /// Broadcast channel management (`api-manage-broadcast[.sandbox].push.apple.com`).
        case channelManagement
    }

    /// Where one request goes: the client and the origin records name.
    package struct Route: Sendable {
        package let client: UpstreamClient
        package let origin: String
        /// Where the upstream's answers on this route are recorded (`--record-scenario`):
        /// the device push routes' when recording, else `nil`.
        package var recorder: UpstreamScenarioRecorder? = nil

        package init(client: UpstreamClient, origin: String, recorder: UpstreamScenarioRecorder? = nil) {
            self.client = client
            self.origin = origin
            self.recorder = recorder
        }
    }

    private let provider: Route
    private let providerWithCertificate: Route?
    /// `--record-scenario`'s recording, when on.
    package let recorder: UpstreamScenarioRecorder?
    private let channelManagement: Route?
    private let channelManagementWithCertificate: Route?

    /// The settings this service runs with, as given.
    package let settings: UpstreamSettings

    /// Makes the clients (no connection is opened until the first request). Throws when the
    /// target or a file cannot be used, naming which.
    package init(settings: UpstreamSettings, group: any EventLoopGroup, logger: Logger) throws(UpstreamSetupError) {
        guard let target = settings.target else { throw UpstreamSetupError("upstream mode needs an upstream") }
        if let problem = settings.problem() { throw UpstreamSetupError(problem) }
        let endpoint: UpstreamEndpoint
        do {
            endpoint = try UpstreamEndpoint.parse(target)
        } catch {
            throw UpstreamSetupError("upstream: \(error)")
        }
        self.settings = settings
        let trustRoots = settings.trustRoots.map { [PEMSource.file($0)] } ?? []
        let certificate: (chain: [PEMSource], key: PEMSource)? = settings.certificateChain.flatMap { chain in
            settings.privateKey.map { ([PEMSource.file(chain)], PEMSource.file($0)) }
        }
        func route(_ endpoint: UpstreamEndpoint, presenting certificate: (chain: [PEMSource], key: PEMSource)?) throws(UpstreamSetupError) -> Route {
            do {
                let client = try UpstreamClient(
                    endpoint: endpoint, certificateChain: certificate?.chain ?? [], privateKey: certificate?.key,
                    trustRoots: trustRoots, group: group, connections: settings.connections,
                    connectTimeout: .nanoseconds(Int64(settings.connectTimeoutSeconds * 1_000_000_000)),
                    requestTimeout: .nanoseconds(Int64(settings.requestTimeoutSeconds * 1_000_000_000)),
                    logger: logger
                )
                return Route(client: client, origin: endpoint.origin)
            } catch {
                throw UpstreamSetupError("upstream \(endpoint.origin): \(error)")
            }
        }
        let recorder = try settings.recordScenario.map { path throws(UpstreamSetupError) in
            try UpstreamScenarioRecorder(path: path, logger: logger)
        }
        self.recorder = recorder
        var provider = try route(endpoint, presenting: nil)
        provider.recorder = recorder
        self.provider = provider
        providerWithCertificate = try certificate.map { certificate throws(UpstreamSetupError) in
            var withCertificate = try route(endpoint, presenting: certificate)
            withCertificate.recorder = recorder
            return withCertificate
        }
        if let management = settings.channelManagementEndpoint() {
            channelManagement = try route(management, presenting: nil)
            channelManagementWithCertificate = try certificate.map { certificate throws(UpstreamSetupError) in
                try route(management, presenting: certificate)
            }
        } else {
            channelManagement = nil
            channelManagementWithCertificate = nil
        }
    }

    /// The route for a request to `api` from a provider that connected with a certificate
    /// or not; `nil` when that API is not relayed (channel management with an upstream URL
    /// and no management URL).
    package func route(for api: API, certificateProvider: Bool) -> Route? {
        switch api {
        case .provider:
            return certificateProvider ? providerWithCertificate ?? provider : provider
        case .channelManagement:
            return certificateProvider ? channelManagementWithCertificate ?? channelManagement : channelManagement
        }
    }

    /// The origin device pushes are relayed to.
    package var providerOrigin: String { provider.origin }
    /// The origin channel management requests are relayed to, if any.
    package var channelManagementOrigin: String? { channelManagement?.origin }

    /// The provider connection `affinity` closed: the upstream connections its requests
    /// used close once their last answers are in.
    package func release(affinity: UInt64) {
        for route in [provider, providerWithCertificate, channelManagement, channelManagementWithCertificate].compactMap({ $0 }) {
            route.client.release(affinity: affinity)
        }
    }

    /// Closes every upstream connection; requests still waiting fail (their providers get 503).
    /// Then the recording, when on, reaches its file with every answer recorded.
    package func shutdown() async {
        for route in [provider, providerWithCertificate, channelManagement, channelManagementWithCertificate].compactMap({ $0 }) {
            await route.client.shutdown()
        }
        await recorder?.finish()
    }
}

/// Why upstream mode cannot start: what was given and what is wrong with it.
package struct UpstreamSetupError: Error, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
