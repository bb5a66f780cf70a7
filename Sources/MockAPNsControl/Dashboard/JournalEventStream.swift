import Hummingbird
import MockAPNsCore
import MockAPNsJournal
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
package struct JournalEventStream: Sendable {
    package let journal: Journal
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
            // The stream ends when the server shuts down (its services' graceful shutdown).
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                let newest = await cancelWhenGracefulShutdown { [cursor] in
                    await journal.waitForRecord(after: cursor, timeout: heartbeat)
                }
                guard newest > cursor else {
                    if Task.isShuttingDownGracefully { break }
                    try await writer.write(ByteBuffer(string: ": idle\n\n"))
                    continue
                }
                let tail = journal.tail(after: cursor, kinds: wanted, limit: capacity)
                cursor = tail.lastSequence
                if let text = Self.messages(tail) {
                    try await writer.write(ByteBuffer(string: text))
                }
                try await Task.sleep(for: writeInterval)
            }
            try await writer.finish(nil)
        })
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
