import Foundation
import MockAPNsTestSupport
import XCTest

/// A running `mockapns serve` whose output is collected as it comes.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    /// The pipes (stdout false, stderr true) that reached their end of file; once both
    /// have, the output is complete. Signalled on `ending`.
    private var ended: Set<Bool> = []
    private let ending = NSCondition()

    init(_ executable: String, _ arguments: [String], directory: String, environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()
        // One reading thread per pipe, blocked in read(2) until data or the end of file:
        // Foundation's readability handlers, cleared from inside themselves at the end of
        // file, could crash libdispatch's event loop under load.
        for (pipe, isError) in [(outPipe, false), (errPipe, true)] {
            let handle = pipe.fileHandleForReading
            let reader = Thread { [weak self] in
                while true {
                    let data = handle.availableData
                    guard !data.isEmpty else { break }
                    self?.append(data, error: isError)
                }
                self?.end(error: isError)
            }
            reader.start()
        }
    }

    private func append(_ data: Data, error: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if error { err.append(data) } else { out.append(data) }
    }

    private func end(error: Bool) {
        ending.lock()
        ended.insert(error)
        ending.broadcast()
        ending.unlock()
    }

    /// Waits until both pipes reached their end (the process and anything it started closed
    /// them), so what it printed last is in `stdout` and `stderr`; a busy machine may run the
    /// handlers late, so this waits for them rather than for a fixed time. Gives up after
    /// `timeout`: a child the server started may still hold a pipe open.
    private func waitForOutput(timeout: TimeInterval = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        ending.lock()
        defer { ending.unlock() }
        while ended.count < 2, ending.wait(until: deadline) {}
    }

    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    /// Waits until standard output has a line starting with `prefix`, and returns it.
    func line(startingWith prefix: String, timeout: TimeInterval = 30) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line) }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ProcessTimeout(command: "mockapns serve printed no \"\(prefix)\" line; stdout: \(stdout) stderr: \(stderr)")
    }

    /// Waits (bounded) for the process to end by itself, and for its pipes to be read out.
    func exit(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else { throw ProcessTimeout(command: "mockapns serve still running; stderr: \(stderr)") }
        waitForOutput()
        return process.terminationStatus
    }

    /// SIGTERM, then waits for the exit and for the pipes to be read out.
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        waitForOutput()
        return process.terminationStatus
    }
}

/// A fresh empty folder to run commands in, with HOME and XDG_DATA_HOME inside another, so
/// the per-user credentials folder is new too.
struct CommandWorld {
    var directory: String
    /// The per-user credentials folder: `$XDG_DATA_HOME/mockapns`.
    var data: String
    var environment: [String: String]
}

extension CommandWorld {
    /// A new world, removed when `test` ends.
    init(_ test: XCTestCase) throws {
        let root = Fixtures.temporaryPath("world")
        directory = root + "/empty"
        let home = root + "/home", dataHome = root + "/data"
        for folder in [directory, home] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_DATA_HOME"] = dataHome
        self.environment = environment
        data = dataHome + "/mockapns"
    }

    /// Runs `executable` (default `mockapns`) here and waits for it.
    func run(_ arguments: [String], executable: String = Fixtures.executable) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `mockapns serve` here.
    func serve(_ arguments: [String]) throws -> ServeProcess {
        try ServeProcess(Fixtures.executable, arguments, directory: directory, environment: environment)
    }
}
