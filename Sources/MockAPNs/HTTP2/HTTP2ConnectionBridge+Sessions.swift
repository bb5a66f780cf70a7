import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsSessions

/// Which session a connection belongs to, found from its credentials: a client certificate's
/// `OU` at the handshake, a provider token's team at its first valid token. The session's
/// scenario and registry decide the connection's requests from then on.
extension HTTP2ConnectionBridge {
    /// The SETTINGS for this connection: the server's, with the scenario's overrides.
    func scenarioSettings(_ base: HTTP2ServerConfiguration) -> HTTP2ServerConfiguration {
        var settings = base
        let overrides = scope.scenarios.current.scenario.connection
        if let streams = overrides.maxConcurrentStreams { settings.maxConcurrentStreams = UInt32(clamping: streams) }
        if let idle = overrides.idleTimeoutSeconds { settings.idleTimeout = .nanoseconds(Int64(idle * 1_000_000_000)) }
        return settings
    }

    /// A trusted certificate's identity as the decision core takes it; the connection joins
    /// the session whose team the certificate's `OU` names, if any.
    func certificateAuthentication(_ leaf: [UInt8]?) -> AuthenticationResult {
        guard let leaf, let identity = try? CertificateIdentity(derEncoded: leaf) else {
            return .rejected(.badCertificate)
        }
        adopt(services.sessions.scope(forTeam: identity.organizationalUnit), team: identity.organizationalUnit)
        return .certificate(identity)
    }

    /// Makes `scope` the connection's session: its scenario decides, its registry judges, and
    /// the connection's records say it, from the next request on.
    func adopt(_ scope: SessionScope, team: String?) {
        scopeTeam = team
        guard scope !== self.scope else { return }
        self.scope = scope
        answers.scenarios = scope.scenarios
        journaling.session = scope.id
    }
}
