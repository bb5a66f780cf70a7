import Hummingbird
import MockAPNsCore
import NIOCore

/// `GET /v1/events/stream`: the journal as Server-Sent Events, for the dashboard.
///
/// Each journal event is one SSE message whose `id` is its sequence number and whose data is
/// the event's JSON (as in `GET /v1/events`). A browser that reconnects sends the last id it
/// saw as `Last-Event-ID` and resumes right after it. Each stream has a bounded buffer
/// (`JournalSubscription`): when the reader falls behind, the oldest events are dropped and
/// the stream says so with an `event: skipped` message whose data is `{"skipped": N}`.
/// A comment line every `heartbeat` keeps proxies from closing an idle stream and lets a
/// closed browser be noticed.
struct JournalEventStream: Sendable {
    let journal: Journal
    var heartbeat: Duration = .seconds(10)
    /// The shortest time between two writes. Events gather in the reader's buffer meanwhile,
    /// so a busy server costs at most one write (of at most `buffer` events) per interval
    /// instead of one wake-up and one write per event.
    var writeInterval: Duration = .milliseconds(250)

    static let parameters: Set<String> = ["after", "type", "buffer"]
    static let defaultBuffer = 1_000

    func response(_ request: Request) throws(ControlAPIError) -> Response {
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
        let start = after
        let journal = self.journal
        let heartbeat = self.heartbeat
        let writeInterval = self.writeInterval
        let subscription = JournalSubscription(capacity: capacity, kinds: kinds)
        // Subscribe before reading the backlog, so nothing recorded in between is missed;
        // the stream drops what it has already sent.
        journal.addSink(subscription)
        if let start {
            let backlog = journal.events(matching: JournalEventFilter(kinds: kinds, afterSequence: start))
            subscription.prepend(backlog)
        }
        let headers: HTTPFields = [
            .contentType: "text/event-stream",
            .cacheControl: "no-cache",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer {
                journal.removeSink(subscription)
                subscription.close()
            }
            // Browsers retry after this many milliseconds when the stream drops.
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            var lastSent = start ?? 0
            while !Task.isCancelled {
                let batch = await subscription.next(timeout: heartbeat)
                var text = ""
                if batch.skipped > 0 {
                    text += "event: skipped\ndata: {\"skipped\":\(batch.skipped)}\n\n"
                }
                for event in batch.events where event.sequence > lastSent {
                    var json = JSONWriter()
                    JournalJSON.write(event, into: &json)
                    text += "id: \(event.sequence)\ndata: \(json.text)\n\n"
                    lastSent = event.sequence
                }
                if text.isEmpty {
                    try await writer.write(ByteBuffer(string: ": idle\n\n"))
                    continue
                }
                try await writer.write(ByteBuffer(string: text))
                try await Task.sleep(for: writeInterval)
            }
            try await writer.finish(nil)
        })
    }
}
