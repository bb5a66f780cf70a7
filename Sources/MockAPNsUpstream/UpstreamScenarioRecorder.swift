#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import MockAPNsLogging
import MockAPNsScenario
import MockAPNsWire
import NIOPosix
import Synchronization

/// `serve --record-scenario FILE`: keeps the upstream's answers that MockAPNs' own rules
/// would not have given (`RecordedAnswers`) as a scenario file that replays them offline.
///
/// The file is written whole at start (a scenario with no rules yet), then again after each
/// change, to a file beside it that is renamed over it: a reader never sees half a file, and
/// the file holds every answer recorded so far whenever the server stops, however it stops.
/// Writes happen on a thread of the recorder's own, never on an event loop; one change or a
/// hundred while a write is under way cost one more write.
package final class UpstreamScenarioRecorder: Sendable {
    package let path: String
    private let logger: Logger
    private let writer: NIOThreadPool
    private let state: Mutex<State>

    private struct State {
        var answers: RecordedAnswers
        /// Counts the changes; the file holds `written`'s.
        var revision = 0
        var written = 0
        var writing = false
        var failed = false
    }

    /// Writes the empty recording to `path`, so that a path that cannot be written fails the
    /// start and not the first answer.
    package init(path: String, logger: Logger) throws(UpstreamSetupError) {
        self.path = path
        self.logger = logger
        let answers = RecordedAnswers(name: "recorded from upstream")
        do {
            try Self.write(answers.scenario.jsonText, to: path)
        } catch {
            throw UpstreamSetupError("record scenario: cannot write \(path): \(error)")
        }
        state = Mutex(State(answers: answers))
        writer = NIOThreadPool(numberOfThreads: 1)
        writer.start()
    }

    /// One answer the upstream gave to a relayed request (see `RecordedAnswers.observe`); a
    /// request that is not a device push (`/3/device/<token>`) is not recorded.
    package func observe(_ hop: UpstreamHop, status: Int, headers: [HTTPHeader], body: [UInt8], disagrees: Bool, coreAccepted: Bool) {
        guard let token = hop.deviceToken else { return }
        let topic = hop.topic
        let (problem, startWriter) = state.withLock { state -> (String?, Bool) in
            let (changed, problem) = state.answers.observe(
                token: token, topic: topic, status: status, headers: headers, body: body, disagrees: disagrees, coreAccepted: coreAccepted
            )
            guard changed else { return (problem, false) }
            state.revision += 1
            guard !state.writing else { return (problem, false) }
            state.writing = true
            return (problem, true)
        }
        if let problem {
            logger.notice("record scenario: the upstream's answer to \(hop.method) \(hop.path) is not recorded: \(problem)")
        }
        if startWriter {
            writer.submit { [self] workState in
                guard case .active = workState else { return }
                writeUntilCurrent()
            }
        }
    }

    /// The answers recorded so far.
    package var answers: RecordedAnswers { state.withLock { $0.answers } }

    /// Waits for the last change to reach the file, then stops the writer.
    package func finish() async {
        try? await writer.shutdownGracefully()
        let (answers, behind) = state.withLock { ($0.answers, $0.written != $0.revision && !$0.failed) }
        guard behind else { return }
        // A change made after the writer stopped (an answer that came in during shutdown).
        do {
            try Self.write(answers.scenario.jsonText, to: path)
        } catch {
            logger.error("record scenario: cannot write \(path): \(error)")
        }
    }

    /// Writes the newest recording until the file holds the newest one.
    private func writeUntilCurrent() {
        while true {
            let (revision, text) = state.withLock { ($0.revision, $0.answers.scenario.jsonText) }
            var failed = false
            do {
                try Self.write(text, to: path)
            } catch {
                failed = true
                logger.error("record scenario: cannot write \(path): \(error); later answers are kept in memory only")
            }
            let done = state.withLock { state -> Bool in
                state.written = revision
                state.failed = failed
                guard state.revision == revision, !failed else { return failed }
                state.writing = false
                return true
            }
            if done { return }
        }
    }

    /// Writes `text` to a file beside `path`, then renames it over `path`.
    private static func write(_ text: String, to path: String) throws(RecordFileError) {
        let partial = path + ".partial"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RecordFileError(errno) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { writeDescriptor(descriptor, $0, buffer.count) } ?? 0
            }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(descriptor)
                throw RecordFileError(code)
            }
            bytes = bytes.dropFirst(count)
        }
        guard close(descriptor) == 0 else { throw RecordFileError(errno) }
        guard rename(partial, path) == 0 else { throw RecordFileError(errno) }
    }
}

/// A system call's failure while the recording is written.
struct RecordFileError: Error, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}

extension UpstreamHop {
    /// The device token of a device push (`/3/device/<token>`), else `nil`.
    package var deviceToken: String? {
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return nil }
        let token = path.dropFirst(prefix.count)
        return token.isEmpty || token.contains(where: { $0 == "/" || $0 == "?" }) ? nil : String(token)
    }
}
