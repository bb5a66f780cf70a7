// Sessions on the server: making one (its credentials, its own scenario and registry), ending
// one by request or when it has gone unused, and the session's view the control API serves.

import Crypto
import Foundation
import MockAPNsBroadcast
import MockAPNsConnections
import MockAPNsControl
import MockAPNsCore
import MockAPNsDevelopmentPKI
import MockAPNsFleet
import MockAPNsScenario
import MockAPNsSessions
import NIOCore

extension MockAPNsServer {
    /// How long a session may go unused when its maker does not say: 15 minutes.
    public static let defaultSessionIdleTimeout: Duration = .seconds(900)

    /// Makes a session: a provider key, a client certificate for `topics` and a control token
    /// of its own, with its own registry, and the server's configured scenario to start with.
    ///
    /// ```swift
    /// let session = try server.createSession(topics: ["com.example.app"])
    /// // sign tokens with session.providerKeyPEM (kid session.keyID, iss session.teamID),
    /// // or connect with session.certificatePEM and session.certificateKeyPEM
    /// ```
    ///
    /// - Parameters:
    ///   - topics: the bundle ids it pushes to, the first one its certificate's `UID`;
    ///     by default the development set's app, `com.example.app`.
    ///   - idleTimeout: it ends after going unused this long (no request with its credentials,
    ///     no control call with its token); `nil` keeps it until `endSession`.
    ///   - scenario: the scenario it starts with, instead of the server's configured one.
    public func createSession(
        topics: [String] = ["com.example.app"], idleTimeout: Duration? = defaultSessionIdleTimeout,
        scenario: Scenario? = nil
    ) throws(UsageError) -> MockAPNsSession {
        guard !topics.isEmpty else { throw .sessionRefused("a session needs at least one topic") }
        for topic in topics where !TopicRules.isWellFormed(topic) {
            throw .sessionRefused("\"\(topic.prefix(100))\" is not a topic (a bundle id such as com.example.app)")
        }
        let id = Self.randomText(16, alphabet: "0123456789abcdef")
        let teamID = Self.randomText(10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let keyID = Self.randomText(10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let key = P256.Signing.PrivateKey()
        let controlToken = BearerToken.generate()
        let certificate = issueSessionCertificate(teamID: teamID, topics: topics)
        let scope = makeSessionScope(
            id: id, teamID: teamID, keyID: keyID, topics: topics, idleTimeout: idleTimeout, scenario: scenario,
            controlTokenDigest: SessionDirectory.digest(ofControlToken: controlToken.value)
        )
        do {
            try admit(scope, publicKey: key.publicKey)
        } catch {
            throw .sessionRefused("the session's provider key could not be registered: \(error)")
        }
        publishToFleet(scope, publicKey: key.publicKey, scenario: scenario, idleTimeout: idleTimeout)
        logger.info("session created", metadata: ["session": "\(id)", "team": "\(teamID)", "key": "\(keyID)"])
        return MockAPNsSession(
            id: id, teamID: teamID, keyID: keyID, providerKeyPEM: key.pemRepresentation + "\n", topics: topics,
            certificatePEM: certificate.credential.flatMap { try? $0.certificatePEM() },
            certificateKeyPEM: certificate.credential?.privateKeyPEM, certificateUnavailable: certificate.unavailable,
            controlToken: controlToken.value, idleTimeout: idleTimeout
        )
    }

    /// A session's state as it starts: its own registry, scenario switch, channels (the
    /// configuration's seeds) and deciders over them.
    func makeSessionScope(
        id: String, teamID: String, keyID: String, topics: [String], idleTimeout: Duration?, scenario: Scenario?,
        controlTokenDigest: String, createdAtMilliseconds: Int64? = nil
    ) -> SessionScope {
        let registry = DeviceRegistry(
            rateWindow: configuration.rateLimit, bindsEnvironmentOnFirstPush: configuration.environment == .both
        )
        let initialScenario = scenario ?? configuration.scenario ?? .empty
        let scenarios = ScenarioSwitch(
            scenario: initialScenario, registry: registry, logger: logger,
            deviceChanges: Self.deviceChanges(journal: journal, clock: clock, fleet: fleetLink?.store, session: id)
        )
        scenarios.applyRegistryState()
        let channels = ChannelRegistry()
        for channel in configuration.broadcast.channels { channels.insert(channel) }
        observeForFleet(channels, session: id)
        observeForFleet(registry, session: id)
        return SessionScope(
            id: id, teamID: teamID, keyID: keyID, topics: topics, registry: registry, scenarios: scenarios,
            initialScenario: initialScenario, decider: Self.makeDecider(configuration, registry: registry, clock: clock),
            channels: channels, broadcasts: Self.makeBroadcastDecider(configuration, channels: channels, clock: clock),
            channelManagement: Self.makeChannelManagement(configuration, channels: channels, clock: clock),
            idleTimeout: idleTimeout.map(TimeAmount.init),
            createdAtMilliseconds: createdAtMilliseconds ?? clock.millisecondsSince1970,
            controlTokenDigest: controlTokenDigest
        )
    }

    /// Trusts the session's key and puts the session in the directory.
    func admit(_ scope: SessionScope, publicKey: P256.Signing.PublicKey) throws {
        tokenVerifier.register(try ProviderKey(
            keyID: scope.keyID ?? "", teamID: scope.teamID ?? "", environment: .both, scope: .team,
            topics: Set(scope.topics), publicKey: publicKey
        ))
        sessions.insert(scope)
    }

    /// Ends a session: its key and certificate lead to the default session from now on, its
    /// control token to nothing, and its scenario, registry and rules are dropped. Its records
    /// stay in the journal, tagged, until the journal's ring lets them go. Whether it existed.
    @discardableResult
    public func endSession(_ id: String) -> Bool {
        guard let scope = sessions.remove(id: id) else { return false }
        forget(scope, because: "ended")
        fleetLink?.store.publish(FleetChange(kind: .sessionEnded, session: id, body: "{}"))
        return true
    }

    /// The ids of the sessions made and not ended, oldest first.
    public var sessionIDs: [String] { sessions.all.compactMap(\.id) }

    /// Ends every session that has gone unused longer than its idle timeout.
    func endIdleSessions(at now: NIODeadline = .now()) {
        // In a fleet, a session in use through another replica is in use here too.
        fleetLink?.shareSessionUse(sessions.all, at: now)
        for scope in sessions.removeIdle(at: now) { forget(scope, because: "idle") }
    }

    func forget(_ scope: SessionScope, because cause: String) {
        if let keyID = scope.keyID { tokenVerifier.removeKey(id: keyID) }
        forgetWebPushSubscriptions(of: scope)
        logger.info("session \(cause)", metadata: ["session": "\(scope.id ?? "")"])
    }

    /// Forgets the web push subscriptions `scope`'s session made; returns how many.
    @discardableResult
    func forgetWebPushSubscriptions(of scope: SessionScope) -> Int {
        let owned = webPushSubscriptions.all.filter { $0.session != nil && $0.session == scope.id }
        for subscription in owned { webPushSubscriptions.remove(id: subscription.id) }
        return owned.count
    }

    /// A client certificate for the session, signed by the development CA the server trusts;
    /// `nil` with the reason when the server trusts another CA or has not its key.
    private func issueSessionCertificate(teamID: String, topics: [String]) -> (credential: DevelopmentCredential?, unavailable: String?) {
        guard configuration.tls.clientTrustRoots == nil else {
            return (nil, "the server trusts client certificates of a CA it was given (tls.clientTrustRoots), whose key it does not hold")
        }
        let authorityFile = configuration.certificateFile(nil, default: "ca.pem")
        let keyFile = configuration.certificateFile(nil, default: "ca-key.pem")
        guard let authority = try? String(contentsOfFile: authorityFile, encoding: .utf8),
              let authorityKey = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            return (nil, "the CA's key (\(keyFile)) is not readable, so the server cannot sign a certificate its TLS trusts")
        }
        do {
            let issuer = try SessionCredentialIssuer(certificatePEM: authority, privateKeyPEM: authorityKey)
            return (try issuer.clientCertificate(teamID: teamID, topics: topics), nil)
        } catch {
            return (nil, "the session certificate could not be made: \(error)")
        }
    }

    /// `count` characters drawn from `alphabet` by the system's secure random source.
    private static func randomText(_ count: Int, alphabet: String) -> String {
        let characters = Array(alphabet)
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in characters[Int.random(in: 0..<characters.count, using: &generator)] })
    }
}
