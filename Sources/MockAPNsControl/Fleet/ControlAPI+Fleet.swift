import Hummingbird
import MockAPNsCore
import MockAPNsFleet
import MockAPNsJournal

/// The control API's reads for the whole fleet: with `serve --state`, a replica's
/// notifications, waits and health answer from what every replica shipped to PostgreSQL.
/// While PostgreSQL is away they answer from this replica's own journal, as a server alone
/// does, and `health` says the fleet is degraded.
extension ControlAPI {
    /// How often a wait looks at the fleet's records again.
    static let fleetWaitInterval = Duration.milliseconds(25)

    /// The fleet's notifications in `server`'s view (a session's, or all) matching `filter`,
    /// in the order they reached the fleet; `nil` when there is no fleet or PostgreSQL does
    /// not answer.
    ///
    /// Each carries its number in the fleet (`FleetStore.fleetSequence`) as its `seq`, so a
    /// client walks the fleet's records with `after` as it walks one server's; its
    /// `connection` is the serving replica's own number.
    static func fleetNotifications(_ server: any ControlledServer, matching filter: NotificationFilter) async -> [NotificationRecord]? {
        guard let fleet = server.fleet, fleet.health.reachable,
              let runs = try? await fleet.records(session: server.sessionID)
        else { return nil }
        var filter = filter
        filter.session = server.sessionID
        var found: [NotificationRecord] = []
        for run in runs {
            for event in run.events {
                if let record = event.notification, filter.matches(record) { found.append(record) }
            }
        }
        return found.sorted { $0.sequence < $1.sequence }
    }

    /// Waits for `count` notifications matching `filter` anywhere in the fleet, looking again
    /// every `fleetWaitInterval`, until `timeout`. `nil` when PostgreSQL does not answer at the
    /// first look (the caller waits on its own journal).
    static func waitForFleetNotifications(
        _ server: any ControlledServer, count: Int, matching filter: NotificationFilter, timeout: Duration
    ) async -> Result<[NotificationRecord], NotificationWaitTimeout>? {
        let deadline = ContinuousClock.now + timeout
        guard var found = await fleetNotifications(server, matching: filter) else { return nil }
        while found.count < count, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: fleetWaitInterval)
            found = await fleetNotifications(server, matching: filter) ?? found
        }
        if found.count >= count { return .success(Array(found.prefix(count))) }
        // The near misses, from the fleet's notifications in the same view.
        let everything = await fleetNotifications(server, matching: NotificationFilter(session: server.sessionID)) ?? []
        return .failure(NotificationWaitTimeout(
            count: count, filter: filter, timeout: timeout, found: found,
            nearMisses: Journal.nearMisses(for: filter, among: everything.reversed())
        ))
    }

    /// The fleet's part of `health`: this replica, whether PostgreSQL answers, what waits.
    static func writeFleet(_ health: FleetHealth, into json: inout JSONWriter) {
        json.beginObject("fleet")
        json.string("replica", health.replica)
        json.string("run", health.run)
        json.string("state", health.reachable ? "connected" : "degraded")
        if let error = health.lastError { json.string("error", error) }
        json.integer("changesPending", health.changesPending)
        json.integer("appliedThrough", health.appliedThrough)
        json.integer("recordsPending", health.recordsPending)
        json.integer("recordsShipped", health.recordsShipped)
        json.integer("fileBytesShipped", health.fileBytesShipped)
        if let spool = health.spool { json.string("spool", spool) }
        json.endObject()
    }
}
