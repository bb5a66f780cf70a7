import Logging
import MockAPNsCore
import NIOCore
import Synchronization

/// The parts of a server that watch it rather than serve APNs: the journal, its JSONL file,
/// and the control API. Started before the listeners and stopped after them, so the file
/// holds every connection from its first event to its last.
final class ServerObservation: Sendable {
    let journal: Journal
    private let fileSink = Mutex<JSONLFileSink?>(nil)
    private let control = ControlServer()

    init(settings: MockAPNsConfiguration.JournalSettings, clock: ServerClock) {
        journal = Journal(options: settings.options, clock: clock)
    }

    /// Opens the JSONL file, if one is configured.
    func openFile(_ path: String?) throws {
        guard let path else { return }
        let sink = try JSONLFileSink(path: path)
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
        let sink = fileSink.withLock { sink in
            defer { sink = nil }
            return sink
        }
        await sink?.close()
    }
}
