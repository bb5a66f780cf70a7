import MockAPNsControl
import MockAPNsCore
import MockAPNsJournal

extension MockAPNsServer {
    /// Puts the server back where the configuration started it, between tests: clears the
    /// journal, forgets every device token and queued feedback tuple, puts the broadcast
    /// channels back to the configured ones, forgets every web push subscription, starts the running
    /// scenario over (counts, named state, random streams from the same seed) and applies its
    /// registry entries again, removes the rules added on top of it, starts the provider verdicts over, sets the clock back to the
    /// configured start (or real time), forgets the delivery model's devices (every device
    /// online, nothing stored), and starts the legacy gateway's churn window over.
    /// Open connections stay open; provider keys stay loaded.
    @discardableResult
    public func reset() -> ServerReset {
        let journalEvents = journal.statistics.count
        delivery.reset()
        journal.clear()
        observation.startVerdictsOver()
        legacy.activity.startChurnOver()
        let registryCleared = registry.removeAll()
        let channelsCleared = resetChannels()
        let previous = scenarios.restart()
        let addedRules = scenarios.added.removeAll()
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
            clockFixed: clock.isFixed,
            webPushSubscriptions: webPushSubscriptions.removeAll(),
            addedRules: addedRules
        )
        return summary
    }
}
