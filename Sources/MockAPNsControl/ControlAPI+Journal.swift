import Hummingbird
import MockAPNsCore
import MockAPNsFleet
import MockAPNsJournal
import ServiceLifecycle

/// The journal: its counts, its notifications (listed or waited for), its events, clearing it.
extension ControlAPI {
    /// Under `/v1`: `GET`/`DELETE journal`, `GET journal/capture.pcapng`, `GET notifications`, `GET notifications/wait`, `GET events`.
    package var journalRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get("journal", use: handle(journalStatistics))
        routes.delete("journal", use: handle(clearJournal))
        routes.get("journal/capture.pcapng", use: handle(journalCapture))
        routes.get("notifications", use: handle(notifications))
        routes.get("notifications/wait", use: handle(waitForNotifications))
        routes.get("events", use: handle(events))
        routes.get("report", use: handle(report))
        return routes
    }

    /// The provider verdicts (`MockAPNsServer.verdictReport()`).
    fileprivate func report(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        guard let report = await server.verdictReport() else {
            throw ControlAPIError("provider verdicts are off (verdicts.enabled is false in the configuration)", status: .notFound)
        }
        return ControlResponse.json(VerdictJSON.encode(report))
    }

    fileprivate func journalStatistics(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let statistics = server.journal.statistics
        // A session counts its own notifications; the rest of the figures are the journal's.
        let count = server.sessionID == nil ? statistics.count : server.journal.notifications(matching: server.scoped(.all)).count
        return ControlResponse.object { json in
            json.integer("count", count)
            json.integer("capacity", statistics.capacity)
            json.integer("bytes", statistics.bytes)
            json.integer("capacityBytes", statistics.capacityBytes)
            json.integer("dropped", statistics.dropped)
            json.integer("lastSequence", statistics.lastSequence)
            json.bool("frames", server.journal.options.recordsFrames)
        }
    }

    /// The journal's connections as a pcapng file, for Wireshark and tshark.
    fileprivate func journalCapture(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The capture of every connection")
        _ = try ControlQuery(request, allowed: [])
        let bytes = server.journalCapture()
        return Response(
            status: .ok,
            headers: [.contentType: Self.captureMediaType, .contentDisposition: "attachment; filename=\"mockapns.pcapng\""],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// The media type of tcpdump's and Wireshark's capture files (pcap and pcapng alike).
    package static let captureMediaType = "application/vnd.tcpdump.pcap"

    fileprivate func clearJournal(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        server.clearJournal()
        // The fleet's reads draw the same line; the replicas clear their own journals when
        // they replay this call.
        if !context.replayed, let fleet = server.fleet {
            fleet.publish(FleetChange(kind: .journalCleared, session: server.sessionID, body: String(server.clock.millisecondsSince1970)))
        }
        return ControlResponse.object { $0.bool("cleared", true) }
    }

    fileprivate func notifications(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let query = try ControlQuery(request, allowed: ControlQuery.notificationParameters)
        let filter = try query.notificationFilter()
        let limit = try query.limit()
        let records = if let fleet = await Self.fleetNotifications(server, matching: filter) {
            Array(fleet.prefix(limit))
        } else {
            server.journal.notifications(matching: server.scoped(filter), limit: limit)
        }
        return Self.notificationList(records, extra: { json in
            json.integer("lastSequence", server.journal.statistics.lastSequence)
        })
    }

    /// Answers `200` once `count` matching notifications are in the journal (`complete:
    /// true`); at `timeout` milliseconds (or when the server shuts down first) answers `408`
    /// with what matched (`complete: false`) and the near misses, ranked, each with the
    /// conditions it failed.
    fileprivate func waitForNotifications(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let query = try ControlQuery(request, allowed: ControlQuery.notificationParameters.union(["count", "timeout"]))
        let filter = server.scoped(try query.notificationFilter())
        guard let count = try query.integer("count", in: 1...100_000) else {
            throw ControlAPIError("count is required: how many matching notifications to wait for", parameter: "count")
        }
        let timeout = try query.integer("timeout", in: 0...Self.maximumWaitMilliseconds) ?? 10_000
        // A wait ends early when the server shuts down, answering what there is.
        let journal = server.journal
        let outcome = await cancelWhenGracefulShutdown { () async -> Result<[NotificationRecord], NotificationWaitTimeout> in
            if let fleet = await Self.waitForFleetNotifications(server, count: count, matching: filter, timeout: .milliseconds(timeout)) {
                return fleet
            }
            do throws(NotificationWaitTimeout) {
                return .success(try await journal.waitForNotifications(count: count, matching: filter, timeout: .milliseconds(timeout)))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let records):
            return Self.notificationList(records, extra: { json in
                json.bool("complete", true)
            })
        case .failure(let failure):
            return Self.notificationList(failure.found, status: .requestTimeout, extra: { json in
                json.bool("complete", false)
                json.string("error", failure.description)
                json.beginArray("nearMisses")
                for miss in failure.nearMisses {
                    json.beginObject()
                    JournalJSON.write(miss.record, key: "notification", into: &json)
                    json.beginArray("differences")
                    for difference in miss.differences {
                        json.beginObject()
                        json.string("condition", difference.condition)
                        json.string("expected", difference.expected)
                        json.string("actual", difference.actual)
                        json.endObject()
                    }
                    json.endArray()
                    json.endObject()
                }
                json.endArray()
            })
        }
    }

    fileprivate func events(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let query = try ControlQuery(request, allowed: ["type", "connection", "stream", "protocol", "after", "limit", "wait", "channel"])
        let filter = JournalEventFilter(
            kinds: try query.eventKinds(),
            connectionID: try query.integer("connection", in: 1...UInt64.max),
            streamID: try query.integer("stream", in: 0...Int32.max),
            afterSequence: server.scoped(NotificationFilter(afterSequence: try query.integer("after", in: 0...UInt64.max))).afterSequence,
            transport: try query.oneOf("protocol", Transport.self),
            channelID: try query.string("channel"),
            session: server.sessionID
        )
        let limit = try query.limit()
        let journal = server.journal
        var found = journal.events(matching: filter, limit: limit)
        if found.isEmpty, let wait = try query.integer("wait", in: 1...Self.maximumWaitMilliseconds) {
            // A follower waits for the next matching event instead of polling.
            // ... or until the server shuts down.
            _ = await cancelWhenGracefulShutdown {
                // Its reader wants only the kinds asked for, so the journal hands it no others.
                let kinds = filter.kinds.map { JournalEventKind.bits(named: $0) } ?? JournalEventKind.allBits
                return await journal.waitForEvents(
                    count: 1, after: filter.afterSequence, kinds: kinds, timeout: .milliseconds(wait)
                ) { event in
                    filter.matches(event, transportOf: journal.transport(ofConnection:))
                }
            }
            found = journal.events(matching: filter, limit: limit)
        }
        let statistics = journal.statistics
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("events")
        for event in found { JournalJSON.write(event, into: &writer) }
        writer.endArray()
        writer.integer("lastSequence", statistics.lastSequence)
        writer.integer("dropped", statistics.dropped)
        writer.endObject()
        return ControlResponse.json(writer.text)
    }
}
