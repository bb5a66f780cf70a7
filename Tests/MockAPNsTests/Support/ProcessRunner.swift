import Foundation

/// Runs a real third-party program (curl, nghttp, openssl) and captures what it printed.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum ProcessRunner {
    /// Runs `executable` with `arguments`, feeding `input` on stdin, and waits (at most
    /// `timeout` seconds; a program still running then is terminated and the test fails).
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, timeout: TimeInterval = 20) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(executable))
        process.arguments = arguments
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
            throw ProcessTimeout(command: ([executable] + arguments).joined(separator: " "))
        }
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)
        )
    }

    static func locate(_ name: String) throws -> String {
        if name.hasPrefix("/") { return name }
        for directory in ["/usr/bin", "/usr/local/bin", "/usr/sbin", "/bin"] {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ProcessTimeout(command: "\(name) is not installed (scripts/install-deps.sh --test installs it)")
    }
}

struct ProcessTimeout: Error, CustomStringConvertible {
    let command: String
    var description: String { "timed out or missing: \(command)" }
}
