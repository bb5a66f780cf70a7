import CoreMetrics
import MockAPNsCore
import MockAPNsJournal
import Prometheus
import Synchronization

/// The server's metrics, kept through swift-metrics in a Prometheus registry of this server's
/// own (no global metrics system), and served as Prometheus text at `GET /metrics`.
///
/// Counts come from journal events, read in batches off the event loops; journal and
/// scenario totals are read when scraped.
package final class ServerMetrics: Sendable {
    /// The Prometheus text format's media type.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let state = Mutex(State())

    /// Connections whose transport is kept for their labels (each is forgotten at its close).
    package var connectionsTracked: Int { state.withLock { $0.transports.count } }

    private struct State {
        var ports: [Transport: Int] = [:]
        /// Open connections' transports, for labelling their TLS failures.
        var transports: [UInt64: Transport] = [:]
        var counters: [String: CoreMetrics.Counter] = [:]
        var gauges: [String: CoreMetrics.Meter] = [:]
        var timers: [String: CoreMetrics.Timer] = [:]
        /// The notification counter and duration timer for each label set seen, found by a
        /// typed key: counting a notification builds no label strings once its set is known.
        var notificationMetrics: [NotificationLabels: NotificationMetrics] = [:]
        /// The label set last counted and its metrics: a run of notifications answered alike
        /// (nearly every run under load) compares labels instead of hashing them.
        var lastNotification: (labels: NotificationLabels, metrics: NotificationMetrics)?
        /// The journal's totals when last scraped, to count on from.
        var journalEvents: UInt64 = 0
        var journalDropped: UInt64 = 0
        var journalHistoryReads: UInt64 = 0
        /// The scenario engine last scraped and its firing counts then.
        var engine: ObjectIdentifier?
        var firings: [Int] = []
    }

    package init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Microseconds to seconds: a mock answers in well under a millisecond unless a
        // scenario delays it.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(250), .seconds(1),
        ]
        self.factory = factory
    }

    /// The ports the listeners bound, for the `port` label.
    package func setPorts(http2: Int, gateway: Int?, feedback: Int?, channelManagement: Int?, webPush: Int? = nil) {
        state.withLock { state in
            state.ports[.http2] = http2
            state.ports[.legacy] = gateway
            state.ports[.feedback] = feedback
            state.ports[.channelManagement] = channelManagement
            state.ports[.webPush] = webPush
        }
    }

    /// Counts what a batch of journal events says.
    package func record(_ events: ActivityEvents) {
        state.withLock { state in
            for event in events {
                switch event.kind {
                case .notification(let record):
                    count(NotificationOutcome(record), in: &state)
                case .connectionOpened(let transport, _):
                    if let id = event.connectionID { state.transports[id] = transport }
                    let labels = listener(state, transport)
                    counter(&state, "mockapns_connections_total", labels).increment()
                    gauge(&state, "mockapns_connections_open", labels).increment()
                case .connectionClosed(let transport, _, _):
                    if let id = event.connectionID { state.transports.removeValue(forKey: id) }
                    gauge(&state, "mockapns_connections_open", listener(state, transport)).decrement()
                case .tlsFailed(let failure):
                    // The alert is the cause's name: a short fixed vocabulary, fit for a label.
                    let cause = failure.alertSent ?? failure.alertReceived.map { "peer_\($0)" } ?? "no_alert"
                    let transport = event.connectionID.flatMap { state.transports[$0] }
                    let labels = transport.map { listener(state, $0) } ?? [("listener", ""), ("port", "")]
                    counter(&state, "mockapns_tls_handshake_failures_total", labels + [("cause", cause)]).increment()
                case .broadcast(let record):
                    counter(&state, "mockapns_broadcasts_total", [
                        ("status", record.status.map(String.init) ?? record.answer.fault?.name ?? "none"),
                        ("reason", record.reason?.rawValue ?? ""),
                    ]).increment()
                case .channelOperation(let record):
                    counter(&state, "mockapns_channel_operations_total", [
                        ("operation", record.operation?.rawValue ?? ""),
                        ("status", record.status.map(String.init) ?? record.answer.fault?.name ?? "none"),
                    ]).increment()
                case .verdict(let verdict):
                    counter(&state, "mockapns_provider_verdicts_total", [
                        ("rule", verdict.rule.rawValue), ("check", verdict.check.rawValue),
                    ]).increment()
                case .tlsEstablished, .http2Frame, .legacyFrame, .fault, .feedbackTuple, .diagnosis, .delivery:
                    break
                }
            }
        }
    }

    /// The Prometheus text, after reading the journal's and the scenario's totals.
    package func exposition(journal: JournalStatistics, scenario: ScenarioFirings) -> String {
        state.withLock { state in
            let events = journal.lastSequence
            counter(&state, "mockapns_journal_events_total", []).increment(by: Int64(clamping: events &- min(events, state.journalEvents)))
            state.journalEvents = events
            // `dropped` starts again from zero when the journal is cleared.
            let dropped = journal.dropped
            let newlyDropped = dropped >= state.journalDropped ? dropped - state.journalDropped : dropped
            counter(&state, "mockapns_journal_dropped_events_total", []).increment(by: Int64(clamping: newlyDropped))
            state.journalDropped = dropped
            gauge(&state, "mockapns_journal_readers", []).set(journal.readers)
            let historyReads = journal.historyReads
            counter(&state, "mockapns_journal_history_reads_total", [])
                .increment(by: Int64(clamping: historyReads &- min(historyReads, state.journalHistoryReads)))
            state.journalHistoryReads = historyReads

            // A replaced or reset scenario starts its counts at zero; the totals go on.
            let identity = scenario.engine
            let firings = scenario.firings
            let before = state.engine == identity ? state.firings : Array(repeating: 0, count: firings.count)
            for (index, ruleName) in scenario.ruleNames.enumerated() where index < firings.count {
                let earlier = index < before.count ? before[index] : 0
                let name = ruleName.isEmpty ? "#\(index + 1)" : ruleName
                let fired = counter(&state, "mockapns_scenario_actions_fired_total", [("scenario", scenario.name), ("rule", name)])
                if firings[index] > earlier { fired.increment(by: Int64(firings[index] - earlier)) }
            }
            state.engine = identity
            state.firings = firings
        }
        return registry.emitToString()
    }

    /// What a notification is counted by: the `mockapns_notifications_total` labels.
    package struct NotificationLabels: Hashable, Sendable {
        package var transport: Transport
        package var status: Int?
        package var dropped: Bool
        package var legacyStatus: LegacyStatus?
        package var reason: Reason?
        /// The fault's name, when one was carried out and no status was written.
        package var fault: String?
        package var accepted: Bool
        /// The session whose credentials sent it (`nil`: the default session's).
        package var session: String?

        package init(_ record: NotificationRecord) {
            transport = record.transport
            dropped = record.dropped
            session = record.withAuthentication { $0.session }
            // The answer's fields read in one look where the record holds it.
            (status, legacyStatus, reason, fault, accepted) = record.withAnswer { answer in
                (answer.status, answer.legacyPacket?.status, answer.reason, answer.fault?.name, answer.accepted)
            }
        }

        /// The `status` label, as written: the HTTP status, or the legacy status byte (0 for a
        /// legacy notification taken in silence), or `dropped`, or the fault carried out
        /// instead of an answer (`resetStream`, `stall`...), or `none` when nothing went out.
        package var statusLabel: String {
            if let status { return String(status) }
            if let legacyStatus { return String(legacyStatus.rawValue) }
            if dropped { return "dropped" }
            if let fault { return fault }
            if transport == .legacy, accepted { return String(LegacyStatus.noErrors.rawValue) }
            return "none"
        }
    }

    private func count(_ outcome: NotificationOutcome, in state: inout State) {
        let metrics = notificationMetrics(&state, outcome.labels)
        metrics.counter.increment()
        metrics.sessionCounter?.increment()
        if let micros = outcome.handlingMicroseconds { metrics.duration.recordMicroseconds(micros) }
    }

    private struct NotificationMetrics {
        var counter: CoreMetrics.Counter
        var duration: CoreMetrics.Timer
        /// A session's notifications are counted again with its id as a label, in a family of
        /// their own, so the server-wide family keeps its labels whether sessions exist or not.
        var sessionCounter: CoreMetrics.Counter?
    }

    private func notificationMetrics(_ state: inout State, _ labels: NotificationLabels) -> NotificationMetrics {
        if let last = state.lastNotification, last.labels == labels { return last.metrics }
        if let known = state.notificationMetrics[labels] {
            state.lastNotification = (labels, known)
            return known
        }
        let made = NotificationMetrics(
            counter: counter(&state, "mockapns_notifications_total", [
                ("protocol", labels.transport.rawValue), ("status", labels.statusLabel), ("reason", labels.reason?.rawValue ?? ""),
            ]),
            duration: timer(&state, "mockapns_request_duration_seconds", [("protocol", labels.transport.rawValue)]),
            sessionCounter: labels.session.map { session in
                counter(&state, "mockapns_session_notifications_total", [
                    ("session", session), ("protocol", labels.transport.rawValue), ("status", labels.statusLabel),
                    ("reason", labels.reason?.rawValue ?? ""),
                ])
            }
        )
        state.notificationMetrics[labels] = made
        state.lastNotification = (labels, made)
        return made
    }

    private func listener(_ state: State, _ transport: Transport) -> [(String, String)] {
        [("listener", transport.rawValue), ("port", state.ports[transport].map(String.init) ?? "")]
    }

    private func counter(_ state: inout State, _ name: String, _ labels: [(String, String)]) -> CoreMetrics.Counter {
        Self.made(in: &state.counters, Self.key(name, labels)) {
            CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
        }
    }

    private func gauge(_ state: inout State, _ name: String, _ labels: [(String, String)]) -> CoreMetrics.Meter {
        Self.made(in: &state.gauges, Self.key(name, labels)) {
            CoreMetrics.Meter(label: name, dimensions: labels, factory: factory)
        }
    }

    private func timer(_ state: inout State, _ name: String, _ labels: [(String, String)]) -> CoreMetrics.Timer {
        Self.made(in: &state.timers, Self.key(name, labels)) {
            CoreMetrics.Timer(label: name, dimensions: labels, factory: factory)
        }
    }

    /// The metric already made for `key`, or a new one, kept for next time.
    private static func made<Metric>(in made: inout [String: Metric], _ key: String, _ make: () -> Metric) -> Metric {
        if let known = made[key] { return known }
        let metric = make()
        made[key] = metric
        return metric
    }

    private static func key(_ name: String, _ labels: [(String, String)]) -> String {
        labels.reduce(name) { $0 + "|" + $1.0 + "=" + $1.1 }
    }
}

/// What the metrics read of one notification: its labels and how long the server took.
struct NotificationOutcome: Sendable, Equatable {
    var labels: ServerMetrics.NotificationLabels
    var handlingMicroseconds: Int?

    init(_ record: NotificationRecord) {
        labels = ServerMetrics.NotificationLabels(record)
        handlingMicroseconds = record.handlingMicroseconds
    }
}

/// What the metrics count of the running scenario: how often each rule fired, read from the
/// engine at a scrape (the server reads it; the readers know no scenario type).
package struct ScenarioFirings: Sendable {
    /// The engine the counts are from: a replaced or reset scenario starts its counts again.
    package var engine: ObjectIdentifier
    package var name: String
    /// Each rule's name (empty when it has none), in the scenario's order.
    package var ruleNames: [String]
    /// How often each rule has fired, in the same order.
    package var firings: [Int]

    package init(engine: ObjectIdentifier, name: String, ruleNames: [String], firings: [Int]) {
        self.engine = engine
        self.name = name
        self.ruleNames = ruleNames
        self.firings = firings
    }
}
