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
/// The stream reads the journal; the journal never pushes to it. It waits for the next record,
/// takes the newest `buffer` wanted events since its last look (`Journal.tail`), writes them,
/// and rests `writeInterval` before it looks again. So a subscriber costs the recording
/// threads nothing per event, a busy server costs at most one write of at most `buffer`
/// events per interval, and a reader that falls behind (or a burst larger than `buffer`) is
/// told with an `event: skipped` message whose data is `{"skipped": N}`. A comment line every
/// `heartbeat` keeps proxies from closing an idle stream and lets a closed browser be noticed.
///
/// A delivery on arrival is not a journal event (readers derive it), so the stream says how
/// far the delivery model has come: `event: delivered` with `{"through": N}`, after the
/// events of the same look, whenever N moved past what the page was last told. An accepted
/// notification up to N that no `delivery` event names was delivered when it arrived. N is
/// read before the events, so every step recorded for a notification up to N is among the
/// events already sent. While a sent notification waits for it, the stream looks again
/// after `writeInterval` even when nothing new is recorded.
package struct JournalEventStream: Sendable {
    package let journal: Journal
    /// The delivery model's progress (`DeliveryService.derivedThrough`); `nil` when it is off.
    package var deliveredThrough: @Sendable () -> UInt64? = { nil }
    package var heartbeat: Duration = .seconds(10)
    /// The shortest time between two looks at the journal.
    package var writeInterval: Duration = .milliseconds(250)

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
        let writeInterval = self.writeInterval
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
            // Browsers retry after this many milliseconds when the stream drops.
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            var cursor = start
            var progress = DeliveryProgress()
            // The stream ends when the server shuts down (its services' graceful shutdown).
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                let waitsForModel = progress.waiting
                let newest = await cancelWhenGracefulShutdown { [cursor] in
                    await journal.waitForRecord(after: cursor, timeout: waitsForModel ? writeInterval : heartbeat)
                }
                let through = deliveredThrough()
                guard newest > cursor else {
                    if Task.isShuttingDownGracefully { break }
                    if let text = progress.message(through: through) {
                        try await writer.write(ByteBuffer(string: text))
                    } else if !waitsForModel {
                        try await writer.write(ByteBuffer(string: ": idle\n\n"))
                    }
                    continue
                }
                let tail = journal.tail(after: cursor, kinds: wanted, limit: capacity)
                cursor = tail.lastSequence
                progress.sent(tail.events)
                let text = (Self.messages(tail) ?? "") + (progress.message(through: through) ?? "")
                if !text.isEmpty {
                    try await writer.write(ByteBuffer(string: text))
                }
                try await Task.sleep(for: writeInterval)
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

        /// The `delivered` message when the model has come further than the page was told and
        /// a sent notification waited for it.
        package mutating func message(through: UInt64?) -> String? {
            guard let through, through > told, waiting else { return nil }
            told = through
            return "event: delivered\ndata: {\"through\":\(through)}\n\n"
        }
    }

    /// The SSE text for what one look found; `nil` when it found nothing to send.
    package static func messages(_ tail: JournalTail) -> String? {
        guard tail.skipped > 0 || !tail.events.isEmpty else { return nil }
        var text = ""
        if tail.skipped > 0 {
            text += "event: skipped\ndata: {\"skipped\":\(tail.skipped)}\n\n"
        }
        for event in tail.events {
            var json = JSONWriter()
            JournalJSON.write(event, into: &json)
            text += "id: \(event.sequence)\ndata: \(json.text)\n\n"
        }
        return text
    }
}
