// Sessions: credentials the server issued, each with its own scenario, registry and view of
// the journal, so parallel test runs on one server do not see each other.

import MockAPNsBroadcast
import MockAPNsConnections
import MockAPNsCore
import MockAPNsScenario
import NIOCore
import Synchronization

/// One session's own state: what every request authenticated with its credentials is decided
/// with (its scenario and rules, its registry through its decider), and what its control view
/// starts from. The server's own credentials are the default session, whose scope is the
/// server's state itself.
///
/// A connection resolves its scope once (at the handshake for a certificate, at the first
/// valid provider token otherwise) and keeps it; everything here is safe to read from any
/// event loop.
package final class SessionScope: Sendable {
    /// What the session's records say (`JournalAuthentication.session`); `nil` for the default
    /// session, so a user who never creates one sees nothing new.
    package let id: String?
    /// The team the session's key and certificate name (the token's `iss`, the certificate's
    /// `OU`): how a request's credentials lead here. `nil` for the default session.
    package let teamID: String?
    /// The session's provider key id; `nil` for the default session.
    package let keyID: String?
    /// The topics the session's certificate lists and its key is scoped to.
    package let topics: [String]
    /// The devices, unregistered tokens and rate windows the session's pushes are judged against.
    package let registry: DeviceRegistry
    /// The session's scenario and the rules added on top of it.
    package let scenarios: ScenarioSwitch
    /// The scenario the session was made with, which a reset of the session puts back.
    package let initialScenario: Scenario
    /// Apple's rules over the session's registry.
    package let decider: PushDecider
    /// The session's broadcast channels, and the cores that send to them and manage them.
    package let channels: ChannelRegistry
    package let broadcasts: BroadcastDecider
    package let channelManagement: ChannelManagementDecider
    /// How long the session may go unused before it ends; `nil`: until it is ended.
    package let idleTimeout: TimeAmount?
    /// When the session was made, in milliseconds since 1970 on the server's clock.
    package let createdAtMilliseconds: Int64
    /// The SHA-256 of the session's control token, lowercase hex; `nil` for the default session.
    package let controlTokenDigest: String?
    /// When a request or control call last used the session (`NIODeadline` uptime nanoseconds).
    private let lastUse: Atomic<UInt64>
    /// The sequence after which the session's view of the journal begins (moved by a clear).
    private let journalStart = Atomic<UInt64>(0)

    package init(
        id: String?, teamID: String?, keyID: String?, topics: [String], registry: DeviceRegistry, scenarios: ScenarioSwitch,
        initialScenario: Scenario, decider: PushDecider, channels: ChannelRegistry, broadcasts: BroadcastDecider,
        channelManagement: ChannelManagementDecider, idleTimeout: TimeAmount?, createdAtMilliseconds: Int64, controlTokenDigest: String?,
        now: NIODeadline = .now()
    ) {
        self.id = id
        self.teamID = teamID
        self.keyID = keyID
        self.topics = topics
        self.registry = registry
        self.scenarios = scenarios
        self.initialScenario = initialScenario
        self.decider = decider
        self.channels = channels
        self.broadcasts = broadcasts
        self.channelManagement = channelManagement
        self.idleTimeout = idleTimeout
        self.createdAtMilliseconds = createdAtMilliseconds
        self.controlTokenDigest = controlTokenDigest
        self.lastUse = Atomic(now.uptimeNanoseconds)
    }

    /// Whether this is the server's own, default session.
    package var isDefault: Bool { id == nil }

    /// Notes a use at `now`. Written at most once a second, so connections on several event
    /// loops pushing at full rate do not take turns writing one shared word per request.
    @inline(__always)
    package func touch(at now: NIODeadline) {
        let nanoseconds = now.uptimeNanoseconds
        let last = lastUse.load(ordering: .relaxed)
        if nanoseconds > last &+ 1_000_000_000 { lastUse.store(nanoseconds, ordering: .relaxed) }
    }

    /// When the session was last used, as `touch` marks it (nanoseconds of uptime).
    package var lastUseUptimeNanoseconds: UInt64 { lastUse.load(ordering: .relaxed) }

    /// Whether the session has gone unused longer than its idle timeout at `now`.
    package func isIdle(at now: NIODeadline) -> Bool {
        guard let idleTimeout else { return false }
        let unused = now.uptimeNanoseconds &- min(lastUse.load(ordering: .relaxed), now.uptimeNanoseconds)
        return unused > UInt64(max(0, idleTimeout.nanoseconds))
    }

    /// The sequence after which the session's journal view begins: records up to it were
    /// cleared from the session's view (`clearJournal`).
    package var journalStartSequence: UInt64 { journalStart.load(ordering: .relaxed) }

    /// Starts the session's journal view after `sequence`.
    package func clearJournal(through sequence: UInt64) {
        journalStart.store(sequence, ordering: .relaxed)
    }
}
