import Foundation
import XCTest

/// The outcome of running a command-line HTTP/2 client.
struct ToolResult {
    var status: Int32
    var output: String
    var errorOutput: String
}

enum ExternalTool {
    /// Runs the tool called `name` (looked up on PATH) with `arguments`, killing it after
    /// `timeout` seconds. Skips the test when the tool is not installed (curl, and nghttp
    /// and h2load from nghttp2's client tools). Output goes through files so a chatty tool
    /// can never block on a full pipe.
    static func run(_ name: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> ToolResult {
        let executable = try find(name)
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("mockapns-http2-\(UUID().uuidString).out")
        let errURL = directory.appendingPathComponent("mockapns-http2-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return ToolResult(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            errorOutput: (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
    }

    private static func find(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw XCTSkip("\(name) is not installed")
    }
}
