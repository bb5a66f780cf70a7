import MockAPNsObservation
import MockAPNsCore
import MockAPNsJournal
import MockAPNsVerdicts

extension MockAPNsServer {
    /// The verdicts on each provider's retry logic: for every provider (certificate subject,
    /// or provider-token team and key) what it tried and what got through, and each of the six
    /// rules with its findings. Judged from every event recorded since the server started or
    /// was last reset; a notification still failing counts as lost. `nil` when
    /// `configuration.judgesProviders` is off.
    ///
    /// ```swift
    /// let report = await server.verdictReport()
    /// XCTAssertEqual(report?.brokenRules, [])
    /// XCTAssertEqual(report?.totals.lost, 0)
    /// ```
    ///
    /// On a replica of a fleet (`serve --state`), the report is the whole fleet's, judged from
    /// the records every replica shipped as one run (`RunOfReplicas`); while the fleet's
    /// PostgreSQL is away, this replica's own.
    public func verdictReport() async -> VerdictReport? {
        if let fleet = await fleetVerdictReport() { return fleet }
        return await observation.verdictReport()
    }

    /// What the readers beside the server (the verdicts, the access log, the metrics) keep
    /// now, for tests that they keep nothing per past request.
    package func readerStateCounts() async -> ReaderStateCounts {
        await observation.readerStateCounts()
    }

    /// Forgets every journal event (sequence numbers go on) and starts the provider verdicts
    /// over with the events that follow.
    public func clearJournal() {
        journal.clear()
        observation.startVerdictsOver()
    }
}
