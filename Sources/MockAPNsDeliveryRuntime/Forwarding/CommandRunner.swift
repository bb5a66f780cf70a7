import Foundation
import MockAPNsJournal
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs one program with bytes on its standard input and keeps the start of what it prints,
/// without blocking a thread on it: the exit is awaited, the output read without waiting, and
/// a program still running at the timeout is stopped (SIGTERM, then SIGKILL).
package enum CommandRunner {
    /// How a run ended.
    package enum Ending: Sendable, Equatable {
        /// It exited with this status (or was killed by this signal).
        case exited(status: Int32, signalled: Bool)
        /// It was still running at the timeout and was stopped.
        case timedOut
        /// It could not be started: why.
        case notStarted(String)
    }

    package struct Result: Sendable, Equatable {
        var ending: Ending
        /// The first bytes of its standard output and standard error, together.
        var output: [UInt8]
    }

    /// Output kept at most, for diagnoses.
    package static let outputLimit = 2048

    /// Runs `arguments` (the program first, looked up on `PATH`) with `input` on standard input.
    package static func run(_ arguments: [String], input: [UInt8], timeout: Duration) async -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `--` so that a program named like an option of env's is still the program.
        process.arguments = ["--"] + arguments
        let standardInput = Pipe()
        let output = Pipe()
        process.standardInput = standardInput
        process.standardOutput = output
        process.standardError = output
        let exit = ProcessExit()
        process.terminationHandler = { finished in
            exit.record(status: finished.terminationStatus, signalled: finished.terminationReason == .uncaughtSignal)
        }
        do {
            try process.run()
        } catch {
            return Result(ending: .notStarted("\(error)"), output: [])
        }
        let reader = output.fileHandleForReading.fileDescriptor
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        feed(input, to: standardInput.fileHandleForWriting)

        var collected: [UInt8] = []
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var ending: Ending?
        while ending == nil {
            drain(reader, into: &collected)
            if let status = exit.status {
                drain(reader, into: &collected)
                ending = .exited(status: status.status, signalled: status.signalled)
            } else if clock.now >= deadline || Task.isCancelled {
                // A cancelled run (the server is stopping) is stopped the same way.
                await stop(process, exit: exit)
                ending = .timedOut
            } else {
                // Woken by the exit; now and then to read what it printed meanwhile, so a
                // chatty program never stalls on a full pipe.
                await exit.bell.wait(timeout: min(.milliseconds(20), deadline - clock.now))
            }
        }
        try? output.fileHandleForReading.close()
        return Result(ending: ending ?? .timedOut, output: collected)
    }

    /// Writes `input` to the program and closes its standard input. A program that exits
    /// without reading costs a failed write, never a signal: SIGPIPE is ignored for the pipe
    /// (Darwin) or process-wide (Linux, where SwiftNIO ignores it as soon as a socket exists).
    private static func feed(_ input: [UInt8], to handle: FileHandle) {
        let descriptor = handle.fileDescriptor
        #if canImport(Darwin)
        _ = fcntl(descriptor, F_SETNOSIGPIPE, 1)
        #endif
        // An APNs payload (at most 5 KB) fits the pipe's buffer, so this does not wait.
        input.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
        try? handle.close()
    }

    /// Reads what the program printed so far, keeping the first `outputLimit` bytes.
    private static func drain(_ descriptor: Int32, into collected: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            let room = max(0, outputLimit - collected.count)
            collected.append(contentsOf: buffer.prefix(min(count, room)))
        }
    }

    /// SIGTERM, and SIGKILL if it is still running a second later.
    private static func stop(_ process: Process, exit: ProcessExit) async {
        process.terminate()
        let clock = ContinuousClock()
        let grace = clock.now + .seconds(1)
        while exit.status == nil, clock.now < grace {
            // On a task of its own, so a cancelled run still gives the program its second.
            await Task.detached { await exit.bell.wait(timeout: .milliseconds(50)) }.value
        }
        if exit.status == nil {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}

/// How a program ended, set by Foundation's termination handler on its own thread.
private final class ProcessExit: Sendable {
    private let value = Mutex<(status: Int32, signalled: Bool)?>(nil)
    /// Rung when the program exits.
    package let bell = Doorbell()

    package var status: (status: Int32, signalled: Bool)? { value.withLock { $0 } }

    package func record(status: Int32, signalled: Bool) {
        value.withLock { $0 = (status, signalled) }
        bell.ring()
    }
}
