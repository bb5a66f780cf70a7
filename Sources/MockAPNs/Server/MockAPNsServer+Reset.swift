import MockAPNsCore
import MockAPNsJournal

/// What `MockAPNsServer.reset()` cleared, so a test (or `POST /v1/reset`) can see it.
public struct ServerReset: Sendable, Equatable {
    /// Journal events forgotten (sequence numbers go on from where they were).
    public var journalEvents: Int
    /// Device tokens the registry forgot before the scenario's entries were applied again.
    public var registryTokens: Int
    /// Feedback tuples that were queued.
    public var feedbackEntries: Int
    /// Broadcast channels forgotten before the configured ones were added again.
    public var broadcastChannels: Int
    /// The scenario started over: its name, the requests it had numbered, how often its rules
    /// had fired in all, the state it was in, and the seed it keeps.
    public var scenario: String
    /// The requests the scenario had numbered.
    public var scenarioRequests: Int
    /// How often its rules had fired, in all.
    public var scenarioFirings: Int
    /// The named state it was in.
    public var scenarioState: String
    /// The seed its random streams start from again.
    public var seed: UInt64
    /// The clock's reading after the reset, and whether it is pinned (`--clock`) or real.
    public var clockMilliseconds: Int64
    /// Whether the clock was pinned.
    public var clockFixed: Bool
}

extension MockAPNsServer {
    /// Puts the server back where the configuration started it, between tests: clears the
    /// journal, forgets every device token and queued feedback tuple, puts the broadcast
    /// channels back to the configured ones, starts the running
    /// scenario over (counts, named state, random streams from the same seed) and applies its
    /// registry entries again, starts the provider verdicts over, sets the clock back to the
    /// configured start (or real time), and forgets the delivery model's devices (every device
    /// online, nothing stored).
    /// Open connections stay open; provider keys stay loaded.
    @discardableResult
    public func reset() -> ServerReset {
        let journalEvents = journal.statistics.count
        delivery.reset()
        journal.clear()
        observation.startVerdictsOver()
        let registryCleared = registry.removeAll()
        let channelsCleared = resetChannels()
        let previous = scenarios.restart()
        if let start = configuration.clockStart {
            clock.set(millisecondsSince1970: start)
        } else {
            clock.followRealTime()
        }
        let summary = ServerReset(
            journalEvents: journalEvents,
            registryTokens: registryCleared.tokens,
            feedbackEntries: registryCleared.feedbackEntries,
            broadcastChannels: channelsCleared,
            scenario: previous.scenario.name,
            scenarioRequests: previous.requestCount,
            scenarioFirings: previous.firingCounts.reduce(0, +),
            scenarioState: previous.currentState,
            seed: previous.seed,
            clockMilliseconds: clock.millisecondsSince1970,
            clockFixed: clock.isFixed
        )
        return summary
    }
}
