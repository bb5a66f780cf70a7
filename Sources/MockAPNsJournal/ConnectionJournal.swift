import MockAPNsCore

/// One connection's way into the journal, shared by the handlers of its pipeline and used only
/// on its event loop.
///
/// While the connection works through what one read brought (`hold()` to `endHolding()`),
/// its events wait here, in order, and are then recorded together: one clock reading, one hold of
/// the journal's lock per few dozen events and one hand-over to the readers, rather than one of
/// each per frame and per notification. The handler right after TLS commits before any of the
/// connection's bytes go out (on flush) and when the read is over, so whoever sees an answer
/// finds its record already in the journal. Outside a read (a timer, a delayed answer) events
/// are recorded at once.
///
/// The events of one read share its moment: the time of the first of them.
package final class ConnectionJournal: @unchecked Sendable {
    /// One event waiting for the commit.
    struct Held {
        var kind: JournalEventKind
        var stream: Int32?
    }

    /// `nil` when the server keeps no journal: every call is then a no-op.
    package let journal: Journal?
    package let connectionID: UInt64

    // Touched only on the connection's event loop, a few times per frame: the run-time
    // exclusivity check is skipped.
    @exclusivity(unchecked) private var held: [Held] = []
    @exclusivity(unchecked) private var isHolding = false
    /// When the first held event happened: read once per read, not once per event.
    @exclusivity(unchecked) private var heldSince: (wallTime: Int64, monotonic: UInt64)?
    /// How many times events went from here to the journal (a commit, or an event recorded at
    /// once): after one, the journal's readers may hold what was recorded before it
    /// (`LegacyRecordWriter` starts a new block then).
    @exclusivity(unchecked) package private(set) var handOvers: UInt64 = 0

    package init(journal: Journal?, connectionID: UInt64) {
        self.journal = journal
        self.connectionID = connectionID
    }

    /// Records `kind`, or holds it until `commit()` while a read is being worked through.
    package func record(_ kind: JournalEventKind, stream: Int32? = nil) {
        guard let journal else { return }
        let kind = kind.recordable(journal.options.providerTokens)
        guard isHolding else {
            handOvers &+= 1
            journal.record(kind, connection: connectionID, stream: stream)
            return
        }
        if heldSince == nil { heldSince = (journal.wallTimeNow, Journal.monotonicNanoseconds()) }
        held.append(Held(kind: kind, stream: stream))
    }

    /// Records two events of one moment, in order: a frame and the notification it carried.
    package func record(_ first: JournalEventKind, then second: JournalEventKind, stream: Int32? = nil) {
        guard let journal else { return }
        guard isHolding else {
            handOvers &+= 1
            let providerTokens = journal.options.providerTokens
            journal.record(first.recordable(providerTokens), then: second.recordable(providerTokens), connection: connectionID, stream: stream)
            return
        }
        record(first, stream: stream)
        record(second, stream: stream)
    }

    /// A fault a scenario injected on the connection (and stream).
    package func recordFault(stream: Int32?, description: String) {
        record(.fault(description: description), stream: stream)
    }

    /// Starts holding unless it already does, and says whether it started: the caller then
    /// ends the hold (`endHolding()`). For the answers completed outside the connection's own
    /// read (a relayed request whose upstream answered, read on another connection), held until
    /// the end of their event loop tick, so the tick's events take one hold of the journal's
    /// lock and one hand-over to the readers, rather than one of each per event.
    package func holdUnlessHolding() -> Bool {
        guard journal != nil, !isHolding else { return false }
        isHolding = true
        return true
    }

    /// From now until `endHolding()`, events wait here until `commit()`.
    package func hold() {
        guard journal != nil else { return }
        isHolding = true
    }

    /// Records every held event, in order; events that follow still wait, until the next
    /// commit, while the read goes on.
    package func commit() {
        guard let journal, let since = heldSince else { return }
        heldSince = nil
        handOvers &+= 1
        journal.record(held: held, connection: connectionID, wallTime: since.wallTime, monotonic: since.monotonic)
        // A connection's usual read keeps its buffer; a rare huge one does not pin its memory.
        held.removeAll(keepingCapacity: held.count <= 512)
    }

    /// Records every held event and stops holding: the read is over (or the connection is).
    package func endHolding() {
        commit()
        isHolding = false
    }
}
