import Foundation
import XCTest

/// What a program run by `ProcessRunner` printed, and how it ended.
package struct ProcessResult: Sendable {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// The one way the tests run another program: a real third-party client (curl, nghttp,
/// h2load, openssl, python3) or the `mockapns` binary.
package enum ProcessRunner {
    /// Runs `executable` (a path, or a name looked up on PATH and the usual bin folders) with
    /// `arguments`, feeding `input` on stdin, and waits at most `timeout` seconds: a program
    /// still running then is terminated and the call throws, so a test never passes on a
    /// half-finished run. A missing program fails the test (it is a test dependency,
    /// installed by `scripts/install-deps.sh --test`).
    package static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, in directory: URL? = nil, timeout: TimeInterval = 20
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(executable))
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try? inPipe.fileHandleForWriting.close()
        // Read both pipes concurrently so a chatty program cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            throw ProcessTimeout(command: ([executable] + arguments).joined(separator: " "))
        }
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)
        )
    }

    /// `run`, but a program that is not installed skips the test instead of failing it: for
    /// the optional tools of a module's own tests (nghttp2's client tools beside curl).
    package static func runIfInstalled(
        _ executable: String, _ arguments: [String], input: Data? = nil, timeout: TimeInterval = 20
    ) throws -> ProcessResult {
        guard (try? locate(executable)) != nil else { throw XCTSkip("\(executable) is not installed") }
        return try run(executable, arguments, input: input, timeout: timeout)
    }

    /// The path of `name`: itself when it is a path, else the first match on PATH or in the
    /// usual bin folders.
    package static func locate(_ name: String) throws -> String {
        if name.contains("/") { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/usr/sbin", "/bin"]
        for folder in folders {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ProcessTimeout(command: "\(name) is not installed (scripts/install-deps.sh --test installs it)")
    }
}

/// A program that did not finish in time, or is not installed.
package struct ProcessTimeout: Error, CustomStringConvertible {
    package let command: String

    package init(command: String) {
        self.command = command
    }

    package var description: String { "timed out or missing: \(command)" }
}
