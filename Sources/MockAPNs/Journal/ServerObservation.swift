import MockAPNsFleet
import MockAPNsControl
import MockAPNsObservation
import MockAPNsDeliveryRuntime
import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import ServiceLifecycle
import Synchronization
import MockAPNsScenario
import MockAPNsVerdicts

/// The parts of a server that watch it rather than serve APNs: the journal, its JSONL file,
/// the reader that feeds the metrics and the access log, and the control API. The journal
/// and its file are open before the listeners start and closed after they stop, so the file
/// holds every connection from its first event to its last.
///
/// The reader and the control API run as the services of one `ServiceGroup`, from
/// `startServices` to `stop`: the group shuts the control API down first (in-flight requests
/// finish, long polls and event streams end), then the reader, which takes in the last events.
final class ServerObservation: Sendable {
    let journal: Journal
    /// Counts for `GET /metrics`.
    let metrics = ServerMetrics()
    /// Holds provider connections' reads while the JSONL file is behind.
    let readGate = JournalReadGate()
    private let fileSink = Mutex<JSONLFileSink?>(nil)
    /// How long the shutdown may spend finishing the file.
    private let fileCloseBound = Mutex<Duration>(JSONLFileSink.defaultCloseBound)
    /// Feeds the metrics and the access log from the journal, off the event loops.
    private let activity: ActivityReader
    /// The running group and the task that runs it (`start()` returns while it runs).
    private let services = Mutex<(group: ServiceGroup, running: Task<Void, Never>)?>(nil)
    /// How long the group waits for in-flight control requests before it cancels them.
    static let gracefulShutdownLimit = Duration.seconds(5)
    /// Where the provider verdicts start from after a reset.
    private let verdictsStart = StartingPoint()

    init(
        settings: MockAPNsConfiguration.JournalSettings, accessLog: MockAPNsConfiguration.AccessLogSettings?,
        verdicts: VerdictSettings?, clock: ServerClock
    ) {
        journal = Journal(options: settings.options, clock: clock)
        // A reader that falls behind slows provider connections down, as the file's writer does.
        let feed = ActivityFeed(gate: readGate)
        activity = ActivityReader(
            feed: feed, metrics: metrics, accessLog: accessLog.map { AccessLog(format: $0.format, output: $0.output) },
            verdicts: verdicts, journal: journal, startsAfter: verdictsStart
        )
    }

    /// The provider verdicts on every event recorded so far; `nil` when verdicts are off.
    func verdictReport() async -> VerdictReport? {
        await activity.report()
    }

    /// What the readers keep now, for tests of their bounds.
    func readerStateCounts() async -> ReaderStateCounts {
        await activity.stateCounts()
    }

    /// Makes the verdicts judge only what is recorded from now on (the server was reset).
    func startVerdictsOver() {
        verdictsStart.start(after: journal.statistics.lastSequence)
    }

    /// The metrics as Prometheus text, counting every event recorded so far.
    func metricsText(engine: ScenarioEngine) async -> String {
        await activity.catchUp()
        let scenario = engine.scenario
        return metrics.exposition(journal: journal.statistics, scenario: ScenarioFirings(
            engine: ObjectIdentifier(engine), name: scenario.name, ruleNames: scenario.rules.map(\.name), firings: engine.firingCounts))
    }

    /// Opens the JSONL file, if one is configured.
    func openFile(_ settings: MockAPNsConfiguration.JournalSettings, logger: Logger) throws {
        guard let path = settings.file else { return }
        let sink = try JSONLFileSink(
            path: path, bufferLimit: settings.fileBufferEvents, policy: settings.fileWhenBehind, gate: readGate,
            backfill: { [weak journal] after, limit in
                journal?.events(matching: JournalEventFilter(afterSequence: after), limit: limit) ?? []
            },
            logger: logger
        )
        fileSink.withLock { $0 = sink }
        fileCloseBound.withLock { $0 = settings.fileCloseBound }
    }

    /// Every standing reader of the journal, subscribed here and nowhere else before the
    /// listeners start: the JSONL file (when configured), a fleet replica's outbox of records
    /// for PostgreSQL, the activity feed (metrics, access
    /// log, verdicts), the delivery model's feed (when it runs). The others subscribe through
    /// the same `Journal.subscribe` while they last: each dashboard stream
    /// (`JournalStreamReader`) and each wait (long polls, the embedding API's waits).
    func subscribeReaders(delivery: DeliveryService, fleetOutbox: FleetRecordOutbox?) {
        if let file = fileSink.withLock({ $0 }) { journal.subscribe(file) }
        if let fleetOutbox { journal.subscribe(fleetOutbox) }
        journal.subscribe(activity.feed)
        if delivery.runsModel { journal.subscribe(delivery.feed) }
    }

    /// Starts the activity reader and, if configured, the control API, as one ServiceGroup;
    /// returns the control API's bound port. Throws when the control API cannot listen (the
    /// group is then stopped by `stop()`, which the caller's clean-up runs).
    func startServices(
        _ settings: MockAPNsConfiguration.ControlSettings, requestHeaderTimeout: TimeAmount, server: MockAPNsServer,
        logger: Logger
    ) async throws -> Int? {
        var configurations = [ServiceGroupConfiguration.ServiceConfiguration(service: activity)]
        let listening = ListeningOutcome()
        if let port = settings.port {
            try settings.checkHost()
            let application = ControlApplication.make(
                api: ControlAPI(server: server), host: settings.host, port: port,
                requestHeaderTimeout: requestHeaderTimeout, logger: logger,
                onListening: { listening.resolve(.success($0)) }
            )
            configurations.append(ServiceGroupConfiguration.ServiceConfiguration(service: application))
        } else {
            listening.resolve(.success(nil))
        }
        // A service that fails is reported below, from the error the group throws; the group's
        // own lines stay out of the server's log. (A logger of its own rather than the
        // server's with a lower level: setting a level sets it on the handler, which a host's
        // logger may share.)
        let groupLogger = Logger(label: logger.label, factory: { _ in SwiftLogNoOpLogHandler() })
        var configuration = ServiceGroupConfiguration(services: configurations, logger: groupLogger)
        configuration.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        let serviceGroup = ServiceGroup(configuration: configuration)
        let running = Task {
            do {
                try await serviceGroup.run()
            } catch {
                if !listening.resolve(.failure(error)) {
                    logger.error("the control API stopped: \(error)")
                }
            }
            // Stopped before it ever listened: nobody must wait forever.
            listening.resolve(.failure(CancellationError()))
        }
        services.withLock { $0 = (serviceGroup, running) }
        do {
            return try await listening.value()
        } catch {
            throw ControlBindFailed(host: settings.host, port: settings.port ?? 0, reason: "\(error)")
        }
    }

    /// Shuts the services down (the control API, then the activity reader), then writes out
    /// and closes the JSONL file.
    func stop() async {
        let running = services.withLock { services in
            defer { services = nil }
            return services
        }
        if let running {
            await running.group.triggerGracefulShutdown()
            await running.running.value
        }
        // The run's last word, before the file closes: the notifications it lost.
        await activity.recordLostNotifications()
        let sink = fileSink.withLock { sink in
            defer { sink = nil }
            return sink
        }
        await sink?.close(within: fileCloseBound.withLock { $0 })
    }
}
