import Logging
import MockAPNsCore
import NIOCore
import Synchronization

/// The parts of a server that watch it rather than serve APNs: the journal, its JSONL file,
/// and the control API. Started before the listeners and stopped after them, so the file
/// holds every connection from its first event to its last.
final class ServerObservation: Sendable {
    let journal: Journal
    /// Counts for `GET /metrics`.
    let metrics = ServerMetrics()
    private let fileSink = Mutex<JSONLFileSink?>(nil)
    private let control = ControlServer()
    /// Feeds the metrics and the access log from the journal, off the event loops.
    private let activity: ActivityReader
    private let reading = Mutex<Task<Void, Never>?>(nil)
    /// Where the provider verdicts start from after a reset.
    private let verdictsStart = StartingPoint()

    init(
        settings: MockAPNsConfiguration.JournalSettings, accessLog: MockAPNsConfiguration.AccessLogSettings?,
        verdicts: VerdictSettings?, clock: ServerClock
    ) {
        journal = Journal(options: settings.options, clock: clock)
        // The verdicts need whole notifications (token, topic, payload), as the access log does.
        let feed = ActivityFeed(keepsWholeNotifications: accessLog != nil || verdicts != nil)
        journal.addSink(feed)
        activity = ActivityReader(
            feed: feed, metrics: metrics, accessLog: accessLog.map { AccessLog(format: $0.format, output: $0.output) },
            verdicts: verdicts, journal: journal, startsAfter: verdictsStart
        )
    }

    /// The provider verdicts on every event recorded so far; `nil` when verdicts are off.
    func verdictReport() async -> VerdictReport? {
        await activity.report()
    }

    /// Makes the verdicts judge only what is recorded from now on (the server was reset).
    func startVerdictsOver() {
        verdictsStart.start(after: journal.statistics.lastSequence)
    }

    /// Starts reading the journal into the metrics and the access log.
    func startActivity() {
        let activity = self.activity
        let task = Task.detached { await activity.run() }
        reading.withLock { $0 = task }
    }

    /// The metrics as Prometheus text, counting every event recorded so far.
    func metricsText(engine: ScenarioEngine) async -> String {
        await activity.catchUp()
        return metrics.exposition(journal: journal.statistics, engine: engine)
    }

    /// Opens the JSONL file, if one is configured.
    func openFile(_ path: String?, logger: Logger) throws {
        guard let path else { return }
        let sink = try JSONLFileSink(path: path, logger: logger)
        journal.addSink(sink)
        fileSink.withLock { $0 = sink }
    }

    /// Starts the control API if configured; returns its bound port.
    func startControl(
        _ settings: MockAPNsConfiguration.ControlSettings, requestHeaderTimeout: TimeAmount, server: MockAPNsServer,
        group: any EventLoopGroup, logger: Logger
    ) async throws -> Int? {
        guard let port = settings.port else { return nil }
        try settings.checkHost()
        do {
            return try await control.start(
                api: ControlAPI(server: server), host: settings.host, port: port,
                requestHeaderTimeout: requestHeaderTimeout, group: group, logger: logger
            )
        } catch {
            throw ControlBindFailed(host: settings.host, port: port, reason: "\(error)")
        }
    }

    /// Stops the control API, then writes out and closes the JSONL file.
    func stop() async {
        await control.stop()
        let task = reading.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        // The run's last word, before the file closes: the notifications it lost.
        await activity.recordLostNotifications()
        let sink = fileSink.withLock { sink in
            defer { sink = nil }
            return sink
        }
        await sink?.close()
    }
}
