/// One reader of the journal. Every reader is fed the same way, from one subscription point
/// (`Journal.subscribe`): the JSONL file, the activity feed (metrics, access log, verdicts),
/// the delivery model, each dashboard stream while it is open and each wait while it waits.
/// The server subscribes its standing readers in one place (`ServerObservation.subscribeReaders`).
///
/// `read(_:)` runs outside the journal's lock, on whichever recording thread is handing over
/// (one at a time, so batches arrive in sequence order). It gets a batch: the run of events
/// recorded since the last hand-over that some reader wants, so possibly of kinds this one
/// does not (it checks `wantedKinds` itself). It should only hand the events over (append them
/// to a buffer, ring a bell), never encode or write; a reader that can fall behind bounds its
/// backlog and says how (the file and the activity feed close the `JournalReadGate`, the
/// delivery feed and a dashboard stream count what they leave out).
package protocol JournalReader: AnyObject, Sendable {
    /// The kinds of event this reader wants, as `JournalEventKind.bit` values ORed together;
    /// the journal hands over only events some reader wants, so a server whose readers want
    /// no frames costs the hot path nothing per frame.
    var wantedKinds: UInt32 { get }
    /// A batch of events in sequence order.
    func read(_ batch: [JournalEvent])
}
