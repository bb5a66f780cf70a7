import Foundation

/// The outcome of running a command-line HTTP/2 client.
struct ToolResult {
    var status: Int32
    var output: String
    var errorOutput: String
}

enum ExternalTool {
    /// Runs `executable` with `arguments`, killing it after `timeout` seconds.
    /// Output goes through files so a chatty tool can never block on a full pipe.
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> ToolResult {
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
        process.executableURL = URL(fileURLWithPath: executable)
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
}
