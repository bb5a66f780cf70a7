// A server as one replica of a fleet (`serve --state`): its changes go to the fleet's log in
// PostgreSQL, the others' come back and are applied here, and its journal lines are shipped
// so any replica answers for the whole fleet.

import Crypto
import Foundation
import Logging
import MockAPNsBroadcast
import MockAPNsConnections
import MockAPNsControl
import MockAPNsCore
import MockAPNsFleet
import MockAPNsJSON
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsSessions
import MockAPNsVerdicts
import MockAPNsWebPush
import NIOCore
import Synchronization

extension MockAPNsConfiguration {
    /// `serve --state` and `--replica`: the PostgreSQL the replicas share, and this one's name.
    package struct FleetSettings: Sendable, Equatable {
        package var location: FleetLocation
        /// This replica's name in records and `health` (default: the host's name).
        package var replica: String

        package init(location: FleetLocation, replica: String? = nil) {
            self.location = location
            self.replica = replica ?? ProcessInfo.processInfo.hostName
        }

        /// The outbox's spool, in the system's temporary folder: a replica's records wait there
        /// while PostgreSQL is away.
        func spoolPath(run: String) -> String {
            let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
            return "\(folder)/mockapns-fleet-\(run).spool"
        }
    }
}

/// What a server holds of its fleet: the store, the task running it, and the router that
/// replays other replicas' control calls.
final class FleetLink: Sendable {
    let store: FleetStore
    private let running = Mutex<Task<Void, Never>?>(nil)
    private let replay = Mutex<ControlReplay?>(nil)

    init(store: FleetStore) {
        self.store = store
    }

    func start(outbox: FleetRecordOutbox, replay: ControlReplay, applying apply: @escaping @Sendable (FleetChange) async -> Void) {
        self.replay.withLock { $0 = replay }
        let store = store
        running.withLock { $0 = Task { await store.run(outbox: outbox, applying: apply) } }
    }

    var controlReplay: ControlReplay? { replay.withLock { $0 } }

    private func local(_ scope: SessionScope) -> UInt64 { scope.lastUseUptimeNanoseconds }

    /// What was last told of each session's use: here (uptime nanoseconds) and by the fleet
    /// (milliseconds since 1970).
    private let usesSeen = Mutex<(local: [String: UInt64], fleet: [String: Int64])>(([:], [:]))

    /// Tells the fleet of the sessions used here since the last look, and marks used here
    /// the sessions the fleet says were used elsewhere since then, so each replica ends a
    /// session only when no replica has used it for its idle time.
    func shareSessionUse(_ scopes: [SessionScope], at now: NIODeadline) {
        let fleetUse = store.sessionUse
        let usedHere: [String] = usesSeen.withLock { seen in
            var usedHere: [String] = []
            for scope in scopes {
                guard let id = scope.id else { continue }
                if local(scope) != seen.local[id] { usedHere.append(id) }
                if let use = fleetUse[id], use > seen.fleet[id] ?? .min {
                    seen.fleet[id] = use
                    scope.touch(at: now)
                }
                // A use the fleet told is not told back (else replicas would keep each
                // other's sessions alive for ever).
                seen.local[id] = local(scope)
            }
            let live = Set(scopes.compactMap(\.id))
            seen.local = seen.local.filter { live.contains($0.key) }
            seen.fleet = seen.fleet.filter { live.contains($0.key) }
            return usedHere
        }
        for id in usedHere { store.noteSessionUse(id) }
    }

    func stop() async {
        let task = running.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }
}

extension MockAPNsServer {
    /// How long a starting replica waits for the fleet's state before it serves; past it, it
    /// serves from its configuration and catches up when PostgreSQL answers.
    static let fleetCatchUpLimit = Duration.seconds(5)

    /// Joins the fleet before the listeners open: starts the store, applies what the log
    /// holds (within `fleetCatchUpLimit`), and logs this replica's channel changes from then on.
    func startFleet(outbox: FleetRecordOutbox?) async {
        guard let fleetLink, let outbox else { return }
        observeForFleet(channels, session: nil)
        observeForFleet(registry, session: nil)
        fleetLink.start(outbox: outbox, replay: ControlReplay(api: ControlAPI(server: self), logger: logger)) { [weak self] change in
            await self?.applyFleetChange(change)
        }
        if await fleetLink.store.waitUntilCaughtUp(within: Self.fleetCatchUpLimit) {
            logger.info("joined the fleet", metadata: [
                "state": "\(fleetLink.store.location.description)", "replica": "\(fleetLink.store.health.replica)",
            ])
        } else {
            logger.warning("the fleet's PostgreSQL did not answer in time; serving from the configuration until it does", metadata: [
                "state": "\(fleetLink.store.location.description)",
            ])
        }
    }

    /// The outbox of the journal's records for the fleet's PostgreSQL, a new spool for this
    /// run; `nil` when the server serves alone.
    func openFleetOutbox() throws -> FleetRecordOutbox? {
        guard let fleetLink, let settings = configuration.fleet else { return nil }
        return try FleetRecordOutbox(path: settings.spoolPath(run: fleetLink.store.run), gate: observation.readGate)
    }

    /// Leaves the fleet after the journal's readers took the last events: the last records are
    /// shipped (within a bound; the spool keeps what PostgreSQL did not take).
    func stopFleet() async {
        guard let fleetLink else { return }
        await fleetLink.store.shipRemaining(within: .seconds(2))
        await fleetLink.stop()
    }

    /// The whole fleet's verdicts: every replica's shipped records judged as one run with this
    /// server's thresholds. `nil` when verdicts are off, there is no fleet, or PostgreSQL does
    /// not answer.
    func fleetVerdictReport() async -> VerdictReport? {
        guard configuration.judgesProviders, let store = fleetLink?.store, store.health.reachable,
              let runs = try? await store.records(session: nil)
        else { return nil }
        var run = RunOfReplicas()
        run.replicas = runs.map(\.events)
        return run.report(settings: configuration.verdicts)
    }

    /// The fleet's series in the Prometheus text format, labelled with the replica.
    static func fleetMetrics(_ health: FleetHealth) -> String {
        // A label value escapes the backslash, the quote and the line feed (the text format).
        let replica = health.replica.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
        let label = "{replica=\"\(replica)\"}"
        let series: [(name: String, type: String, help: String, value: String)] = [
            ("mockapns_fleet_up", "gauge", "Whether the fleet's PostgreSQL answers (1), or the fleet is degraded and this replica answers from what it holds (0).", health.reachable ? "1" : "0"),
            ("mockapns_fleet_changes_pending", "gauge", "Changes made on this replica and not yet written to the fleet's log.", "\(health.changesPending)"),
            ("mockapns_fleet_applied_change", "gauge", "The number of the newest change of the fleet's log applied on this replica.", "\(health.appliedThrough)"),
            ("mockapns_fleet_records_shipped_total", "counter", "Records (journal events but frames) this run of the replica wrote to PostgreSQL.", "\(health.recordsShipped)"),
            ("mockapns_fleet_file_bytes_shipped", "gauge", "How far this replica's outbox spool is shipped to PostgreSQL, in bytes.", "\(health.fileBytesShipped)"),
        ]
        return series.map { "# HELP \($0.name) \($0.help)\n# TYPE \($0.name) \($0.type)\n\($0.name)\(label) \($0.value)\n" }.joined()
    }

    /// Logs each channel `channels` stores or deletes, for the other replicas.
    func observeForFleet(_ channels: ChannelRegistry, session: String?) {
        guard let store = fleetLink?.store else { return }
        channels.observe { change in
            switch change {
            case .stored(let channel):
                store.publish(FleetChange(kind: .channel, session: session, body: FleetChannelJSON.encode(channel)))
            case .deleted(let id):
                var json = JSONWriter()
                json.beginObject()
                json.string("id", id)
                json.endObject()
                store.publish(FleetChange(kind: .channelDeleted, session: session, body: json.text))
            }
        }
    }

    /// Logs each rate window `registry` gives a token, for the other replicas.
    func observeForFleet(_ registry: DeviceRegistry, session: String?) {
        guard let store = fleetLink?.store else { return }
        registry.observeRateWindows { token, window in
            var json = JSONWriter()
            json.beginObject()
            json.string("token", token)
            json.integer("pushes", window.pushes)
            json.integer("perMilliseconds", window.perMilliseconds)
            json.endObject()
            store.publish(FleetChange(kind: .rateWindow, session: session, body: json.text))
        }
    }

    /// What a scenario's `setDevice` rule does: the delivery model's record of the device's
    /// change, and in a fleet the change logged, so every replica's delivery model takes it.
    static func deviceChanges(
        journal: Journal, clock: ServerClock, fleet: FleetStore?, session: String?
    ) -> @Sendable (ScenarioDeviceChange) -> Void {
        let record = ScenarioSwitch.deviceChangeRecorder(journal: journal, clock: clock)
        guard let fleet else { return record }
        return { change in
            record(change)
            var json = JSONWriter()
            json.beginObject()
            json.string("token", change.deviceToken)
            json.bool("online", change.online)
            json.string("rule", change.rule)
            json.endObject()
            fleet.publish(FleetChange(kind: .deviceState, session: session, body: json.text))
        }
    }

    /// Logs a session made here, with what the other replicas need to take its credentials.
    func publishToFleet(_ scope: SessionScope, publicKey: P256.Signing.PublicKey, scenario: Scenario?, idleTimeout: Duration?) {
        guard let store = fleetLink?.store, let id = scope.id else { return }
        var json = JSONWriter()
        json.beginObject()
        json.string("teamId", scope.teamID ?? "")
        json.string("keyId", scope.keyID ?? "")
        json.string("publicKey", publicKey.pemRepresentation)
        json.beginArray("topics")
        for topic in scope.topics { json.string(nil, topic) }
        json.endArray()
        if let idleTimeout { json.integer("idleSeconds", idleTimeout.components.seconds) }
        if let scenario { json.string("scenario", scenario.jsonText) }
        json.string("controlTokenDigest", scope.controlTokenDigest ?? "")
        json.integer("createdAt", scope.createdAtMilliseconds)
        json.endObject()
        store.publish(FleetChange(kind: .session, session: id, body: json.text))
    }

    /// Logs a web push subscription made here, with the user agent's keys, so any replica
    /// reads a push to it.
    func publishToFleet(_ subscription: WebPushSubscription) {
        guard let store = fleetLink?.store else { return }
        var json = JSONWriter()
        json.beginObject()
        json.string("id", subscription.id)
        json.string("applicationServerKey", Data(subscription.applicationServerKey).base64EncodedString())
        json.string("privateKey", Data(subscription.privateKeyBytes).base64EncodedString())
        json.string("auth", Data(subscription.auth).base64EncodedString())
        json.integer("createdAt", subscription.createdAtMilliseconds)
        json.endObject()
        store.publish(FleetChange(kind: .webPushSubscription, session: subscription.session, body: json.text))
    }

    /// Applies a change another replica made.
    func applyFleetChange(_ change: FleetChange) async {
        switch change.kind {
        case .control:
            await fleetLink?.controlReplay?.apply(change)
        case .session:
            adoptFleetSession(change)
        case .sessionEnded:
            if let id = change.session, let scope = sessions.remove(id: id) { forget(scope, because: "ended on another replica") }
        case .channel:
            guard let channel = FleetChannelJSON.decode(change.body) else {
                logger.warning("a channel in the fleet's log could not be read; skipped")
                return
            }
            fleetChannels(of: change.session)?.insert(channel, announcing: false)
        case .channelDeleted:
            guard let node = try? JSONParser.parse(change.body), var object = try? JSONObjectReader(node),
                  let id = (try? object.string("id")).flatMap({ $0 })
            else { return }
            fleetChannels(of: change.session)?.delete(id: id, announcing: false)
        case .webPushSubscription:
            guard let subscription = Self.fleetSubscription(change) else {
                logger.warning("a web push subscription in the fleet's log could not be read; skipped")
                return
            }
            webPushSubscriptions.add(subscription)
        case .rateWindow:
            guard let node = try? JSONParser.parse(change.body), var object = try? JSONObjectReader(node),
                  let token = (try? object.string("token")).flatMap({ $0 }),
                  let pushes = (try? object.integer("pushes", in: 0...Int64(Int32.max))).flatMap({ $0 }),
                  let period = (try? object.integer("perMilliseconds", in: 1...Int64.max)).flatMap({ $0 })
            else { return }
            let registry = change.session.map { sessions.scope(id: $0)?.registry } ?? registry
            registry?.limitPushes(token, to: RateWindow(pushes: Int(pushes), perMilliseconds: period), announcing: false)
        case .deviceState:
            guard let node = try? JSONParser.parse(change.body), var object = try? JSONObjectReader(node),
                  let token = (try? object.string("token")).flatMap({ $0 }),
                  let online = (try? object.bool("online")).flatMap({ $0 })
            else { return }
            let rule = (try? object.string("rule")).flatMap { $0 } ?? ""
            // As the rule's own firing records it here; the delivery model reads it.
            ScenarioSwitch.deviceChangeRecorder(journal: journal, clock: clock)(
                ScenarioDeviceChange(deviceToken: token, online: online, rule: rule)
            )
        case .journalCleared:
            // For the fleet's reads; this replica's journal was cleared by the control call.
            break
        }
    }

    /// A subscription as the fleet's log holds it.
    private static func fleetSubscription(_ change: FleetChange) -> WebPushSubscription? {
        guard let node = try? JSONParser.parse(change.body), var object = try? JSONObjectReader(node),
              let id = (try? object.string("id")).flatMap({ $0 }),
              let serverKey = (try? object.string("applicationServerKey")).flatMap({ $0 }).flatMap({ Data(base64Encoded: $0) }),
              let keyBytes = (try? object.string("privateKey")).flatMap({ $0 }).flatMap({ Data(base64Encoded: $0) }),
              let auth = (try? object.string("auth")).flatMap({ $0 }).flatMap({ Data(base64Encoded: $0) }),
              let createdAt = (try? object.integer("createdAt", in: Int64.min...Int64.max)).flatMap({ $0 }),
              let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: keyBytes)
        else { return nil }
        var subscription = WebPushSubscription(
            id: id, applicationServerKey: Array(serverKey), privateKey: privateKey, auth: Array(auth),
            createdAtMilliseconds: createdAt
        )
        subscription.session = change.session
        return subscription
    }

    /// The channel registry of `session` (`nil`: the server's own), if it is here.
    private func fleetChannels(of session: String?) -> ChannelRegistry? {
        guard let session else { return channels }
        return sessions.scope(id: session)?.channels
    }

    /// Takes a session another replica made: the same team, key and control token, a state
    /// of its own here that the log keeps in step.
    private func adoptFleetSession(_ change: FleetChange) {
        guard let id = change.session, sessions.scope(id: id) == nil else { return }
        do {
            let node = try JSONParser.parse(change.body)
            var object = try JSONObjectReader(node)
            guard let teamID = try object.string("teamId"), let keyID = try object.string("keyId"),
                  let publicKeyPEM = try object.string("publicKey"),
                  let digest = try object.string("controlTokenDigest")
            else {
                logger.warning("a session in the fleet's log lacks its credentials; skipped", metadata: ["session": "\(id)"])
                return
            }
            let topics = try object.strings("topics") ?? []
            let idleSeconds = try object.integer("idleSeconds", in: 0...Int64(Int32.max))
            let scenarioText = try object.string("scenario")
            let scenario = try scenarioText.map { text throws in try Scenario.decode(jsonText: text) }
            let createdAt = try object.integer("createdAt", in: Int64.min...Int64.max)
            let scope = makeSessionScope(
                id: id, teamID: teamID, keyID: keyID, topics: topics, idleTimeout: idleSeconds.map { .seconds($0) },
                scenario: scenario, controlTokenDigest: digest, createdAtMilliseconds: createdAt
            )
            try admit(scope, publicKey: try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM))
            logger.info("session taken from the fleet", metadata: ["session": "\(id)", "team": "\(teamID)"])
        } catch {
            logger.warning("a session in the fleet's log could not be taken: \(error)", metadata: ["session": "\(id)"])
        }
    }
}

/// A broadcast channel as the fleet's log holds it.
enum FleetChannelJSON {
    /// As the control API lists it (`GET /v1/channels`).
    static func encode(_ channel: BroadcastChannel) -> String {
        var json = JSONWriter()
        ControlAPI.write(channel, into: &json)
        return json.text
    }

    static func decode(_ text: String) -> BroadcastChannel? {
        guard let node = try? JSONParser.parse(text), var object = try? JSONObjectReader(node),
              let id = (try? object.string("id")).flatMap({ $0 }),
              let bundleID = (try? object.string("bundleId")).flatMap({ $0 }),
              let environment = (try? object.oneOf("environment", APNsEnvironment.self)).flatMap({ $0 }),
              let policy = (try? object.integer("messageStoragePolicy", in: 0...1)).flatMap({ $0 }),
              let storagePolicy = MessageStoragePolicy(rawValue: Int(policy)),
              let createdAt = (try? object.integer("createdAt", in: Int64.min...Int64.max)).flatMap({ $0 })
        else { return nil }
        return BroadcastChannel(
            id: id, bundleID: bundleID, environment: environment, storagePolicy: storagePolicy, createdAtMilliseconds: createdAt
        )
    }
}
