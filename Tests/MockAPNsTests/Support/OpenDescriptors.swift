import MockAPNsTestSupport
import Foundation

/// This process's open file descriptors and memory, read from /proc: an in-process server's
/// sockets are among them, so a leaked connection shows as a count that does not come back.
enum OpenDescriptors {
    /// How many TCP sockets this process holds now: every connection and listener of the
    /// in-process server is one. (Other descriptors come and go with the runtime: an event
    /// loop created on first use brings an epoll, an eventfd and a timerfd for good, and
    /// Foundation's Process keeps a Unix socket pair per child.)
    static var count: Int {
        let tcpInodes = Self.tcpInodes()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                  target.hasPrefix("socket:[") else { return false }
            return tcpInodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }.count
    }

    /// The inodes of every TCP socket on the machine (IPv4 and IPv6).
    private static func tcpInodes() -> Set<String> {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 9 { inodes.insert(String(fields[9])) }
            }
        }
        return inodes
    }

    /// Every descriptor open now, sockets or not.
    static var allCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Waits until at most `target` sockets are open (connections close asynchronously),
    /// checking every 50 ms for at most `seconds`; returns the last count seen.
    static func settle(atMost target: Int, within seconds: Double = 15) async -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var now = count
        while now > target, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            now = count
        }
        return now
    }

    /// What each open descriptor is (`socket:[123]`, a path), for failure messages.
    static var described: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { name in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "?"
            return name + "->" + target
        }
    }

    /// Resident memory in bytes (VmRSS).
    static var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return -1 }
        return kilobytes * 1024
    }
}

/// A client from Tests/RobustnessClients/clients.py, running while the test talks to it line by line.
final class RobustnessClient: @unchecked Sendable {
    static let script = Fixtures.root + "/Tests/RobustnessClients/clients.py"

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try ProcessRunner.locate("python3"))
        process.arguments = [Self.script] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
    }

    /// The next line the client printed (without its newline), or `nil` at its end.
    func readLine() -> String? {
        let handle = output.fileHandleForReading
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered = Data(buffered[buffered.index(after: newline)...])
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return buffered.isEmpty ? nil : String(decoding: buffered, as: UTF8.self) }
            buffered.append(chunk)
        }
    }

    /// `readLine()` off the cooperative threads (it blocks), for async tests.
    func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.readLine()) }
        }
    }

    /// `remainingLines()` off the cooperative threads.
    func finish() async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.remainingLines()) }
        }
    }

    /// Every remaining line, once the client has exited.
    func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        process.waitUntilExit()
        // Our ends of the pipes, so the test's descriptor count is the server's alone.
        try? input.fileHandleForWriting.close()
        try? output.fileHandleForReading.close()
        return lines
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    var status: Int32 { process.terminationStatus }
}
