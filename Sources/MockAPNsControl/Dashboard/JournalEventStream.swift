import Hummingbird
import MockAPNsCore
import MockAPNsJournal
import MockAPNsDelivery
import NIOCore
import ServiceLifecycle

/// `GET /v1/events/stream`: the journal as Server-Sent Events, for the dashboard.
///
/// Each journal event is one SSE message whose `id` is its sequence number and whose data is
/// the event's JSON (as in `GET /v1/events`). A browser that reconnects sends the last id it
/// saw as `Last-Event-ID` and resumes right after it.
///
/// The journal pushes to the stream: while it is open the stream is one of the journal's
/// readers (`JournalStreamReader`, subscribed through `Journal.subscribe` like every other),
/// handed the events of its kinds in batches as they are recorded. It looks at the journal's
/// history once, when it opens (`Journal.tail`, for the events after `after`), and from then on
/// writes when its reader rings, then rests `coalescing` so that a busy server's events go out
/// in a few large writes rather than many small ones. A reader that falls behind (or a burst
/// larger than `buffer`) keeps the newest `buffer` events and is told with an
/// `event: skipped` message whose data is `{"skipped": N}`. A comment line every `heartbeat`
/// keeps proxies from closing an idle stream and lets a closed browser be noticed.
///
/// A delivery on arrival is not a journal event (readers derive it), so the stream says how
/// far the delivery model has come: `event: delivered` with `{"through": N}`, after the
/// events of the same round, whenever N moved past what the page was last told. An accepted
/// notification up to N that no `delivery` event names was delivered when it arrived. N is
/// read first, and told only once the journal has handed the stream every event recorded by
/// then (`Journal.handedOverThrough`), so every step recorded for a notification up to N is
/// among the events already sent. The model's progress is no journal event, so while a sent
/// notification waits for it the stream looks at it again after `coalescing`.
package struct JournalEventStream: Sendable {
    package let journal: Journal
    /// The delivery model's progress (`DeliveryService.derivedThrough`); `nil` when it is off.
    package var deliveredThrough: @Sendable () -> UInt64? = { nil }
    /// Only this session's records (its notifications, broadcasts and channel operations):
    /// the stream of a session's dashboard. `nil`: every event.
    package var session: String?
    package var heartbeat: Duration = .seconds(10)
    /// How long the stream rests after a write, gathering what arrives meanwhile into the next.
    package var coalescing: Duration = .milliseconds(50)

    package static let parameters: Set<String> = ["after", "type", "buffer"]
    package static let defaultBuffer = 1_000

    package func response(_ request: Request) throws(ControlAPIError) -> Response {
        let query = try ControlQuery(request, allowed: Self.parameters)
        let kinds = try query.eventKinds()
        let capacity = try query.integer("buffer", in: 1...100_000) ?? Self.defaultBuffer
        var after = try query.integer("after", in: 0...UInt64.max)
        if let lastID = request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value, !lastID.isEmpty {
            guard let resumed = UInt64(lastID) else {
                throw ControlAPIError("Last-Event-ID must be an event sequence number, not \"\(lastID.prefix(40))\"", parameter: "Last-Event-ID")
            }
            after = resumed
        }
        let wanted = kinds.map { JournalEventKind.bits(named: $0) } ?? JournalEventKind.allBits
        let journal = self.journal
        let deliveredThrough = self.deliveredThrough
        let heartbeat = self.heartbeat
        let coalescing = self.coalescing
        let session = self.session
        // A session's stream keeps its own records alone.
        let visible: @Sendable ([JournalEvent]) -> [JournalEvent] = { events in
            guard let session else { return events }
            return events.filter { $0.kind.session == session }
        }
        // Without `after`, the stream starts with what is recorded from now on. A cursor past
        // the newest event comes from an earlier run of the server (a browser resuming after a
        // restart): it starts from now too, or it would wait for numbers this run never reaches.
        let newest = journal.statistics.lastSequence
        let start = min(after ?? newest, newest)
        let headers: HTTPFields = [
            .contentType: "text/event-stream",
            .cacheControl: "no-cache",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // Subscribed before the look at the history, so an event recorded in between is in
            // the look or pushed (the reader drops what the look already held).
            let reader = JournalStreamReader(wantedKinds: wanted, capacity: capacity)
            journal.subscribe(reader)
            defer { journal.unsubscribe(reader) }
            // Browsers retry after this many milliseconds when the stream drops.
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            // The model's progress before the look, so every step behind it is in the look.
            let throughBeforeLook = deliveredThrough()
            let history = journal.tail(after: start, kinds: wanted, limit: capacity)
            reader.start(after: history.lastSequence)
            var progress = DeliveryProgress()
            progress.sent(history.events)
            // The look read the ring itself: nothing waits on a hand-over.
            var text = (Self.messages(visible(history.events), skipped: history.skipped) ?? "")
                + (progress.message(through: throughBeforeLook, handedOver: true) ?? "")
            // The stream ends when the server shuts down (its services' graceful shutdown).
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                if !text.isEmpty {
                    try await writer.write(ByteBuffer(string: text))
                    try await Task.sleep(for: coalescing)
                }
                let waitsForModel = progress.waiting
                await cancelWhenGracefulShutdown {
                    await reader.bell.wait(timeout: waitsForModel ? coalescing : heartbeat)
                }
                if Task.isShuttingDownGracefully { break }
                // The model's progress first, and the journal's place then: the events behind
                // that progress are recorded by then, and told once they reached the reader.
                let through = deliveredThrough()
                let recorded = journal.statistics.lastSequence
                let handedOver = journal.handedOverThrough >= recorded
                let taken = reader.take()
                progress.sent(taken.events)
                text = (Self.messages(visible(taken.events), skipped: taken.skipped) ?? "")
                    + (progress.message(through: through, handedOver: handedOver) ?? "")
                if text.isEmpty, !waitsForModel { text = ": idle\n\n" }
            }
            try await writer.finish(nil)
        })
    }

    /// What the page has been told of the delivery model's progress, and whether a notification
    /// it was sent still waits for it.
    package struct DeliveryProgress: Sendable {
        /// The newest sent notification that enters the delivery model.
        private var newestSent: UInt64 = 0
        /// The progress last told.
        private var told: UInt64 = 0

        package init() {}

        /// Whether a notification sent waits for the model.
        package var waiting: Bool { newestSent > told }

        package mutating func sent(_ events: [JournalEvent]) {
            for event in events.reversed() {
                if let record = event.notification, DeliveryNotification.entersModel(record) {
                    newestSent = max(newestSent, event.sequence)
                    return
                }
            }
        }

        /// The `delivered` message when the model has come further than the page was told, a
        /// sent notification waited for it, and the events recorded by then have reached the
        /// stream (`handedOver`; otherwise it is told on a later round).
        package mutating func message(through: UInt64?, handedOver: Bool) -> String? {
            guard let through, through > told, waiting, handedOver else { return nil }
            told = through
            return "event: delivered\ndata: {\"through\":\(through)}\n\n"
        }
    }

    /// The SSE text for a round's events and how many were passed over before them; `nil`
    /// when there is nothing to send.
    package static func messages(_ events: [JournalEvent], skipped: UInt64) -> String? {
        guard skipped > 0 || !events.isEmpty else { return nil }
        var text = ""
        if skipped > 0 {
            text += "event: skipped\ndata: {\"skipped\":\(skipped)}\n\n"
        }
        for event in events {
            var json = JSONWriter()
            JournalJSON.write(event, into: &json)
            text += "id: \(event.sequence)\ndata: \(json.text)\n\n"
        }
        return text
    }
}
