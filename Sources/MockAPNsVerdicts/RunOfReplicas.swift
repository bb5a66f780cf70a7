import MockAPNsJournal

/// The journals of several replicas judged as one run, so a provider that retries through
/// another replica is judged as one provider: `mockapns report` over several JSONL files, and a
/// fleet's report over the records its replicas shipped.
///
/// Each replica numbers its connections and events from 1. Merged, the events are taken in
/// the order of their times (a replica's own order kept among equal times), a connection of
/// the k-th replica is numbered `k << 40` plus its own number, and the events are numbered in
/// their merged order. A single replica keeps its numbers, so findings cite its own `seq`.
package struct RunOfReplicas {
    /// Each replica's events, in its own order.
    package var replicas: [[JournalEvent]] = []
    /// The runs of events a replica's file left out (`JournalFileGap`), for the report's note.
    package var gaps: [JournalFileGap] = []

    package init() {}

    /// Judges the run with `settings`.
    package func report(settings: VerdictSettings) -> VerdictReport {
        var judge = ProviderJudge(settings: settings)
        for gap in gaps { judge.noteGap(gap) }
        guard replicas.count > 1 else {
            for event in replicas.first ?? [] { _ = judge.consume(event) }
            return judge.report()
        }
        var merged: [(time: Int64, replica: Int, place: Int, event: JournalEvent)] = []
        for (replica, events) in replicas.enumerated() {
            for (place, event) in events.enumerated() {
                merged.append((event.wallTimeMilliseconds, replica, place, event))
            }
        }
        merged.sort { ($0.time, $0.replica, $0.place) < ($1.time, $1.replica, $1.place) }
        for (position, entry) in merged.enumerated() {
            var event = entry.event
            event.sequence = UInt64(position + 1)
            event.connectionID = event.connectionID.map { $0 | UInt64(entry.replica) << 40 }
            _ = judge.consume(event)
        }
        return judge.report()
    }
}
