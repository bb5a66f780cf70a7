import MockAPNsTestSupport
import Foundation
import MockAPNs

/// This process's open file descriptors and memory, read from /proc: an in-process server's
/// sockets are among them, so a leaked connection shows as a socket that does not go away.
enum OpenDescriptors {
    /// A TCP socket this process holds whose local port is one of a server's: its listener,
    /// or a connection it accepted there.
    struct ServerSocket: CustomStringConvertible {
        var descriptor: String
        var localPort: Int
        var remotePort: Int
        /// The kernel's state code (/proc/net/tcp `st`): 0A is LISTEN, 01 ESTABLISHED, 08 CLOSE_WAIT.
        var state: String

        var isListening: Bool { state == "0A" }

        var description: String {
            "fd \(descriptor): \(localPort) <- \(remotePort), state \(state)\(isListening ? " (listening)" : "")"
        }
    }

    /// The TCP sockets this process holds on `ports` (a server's ports), looked up by the
    /// inode each descriptor points to. Counting only the server's own ports keeps sockets of
    /// other tests in this process, and of the runtime, out of the count.
    static func serverSockets(on ports: Set<Int>) -> [ServerSocket] {
        let table = tcpTable()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                  target.hasPrefix("socket:["),
                  let entry = table[String(target.dropFirst("socket:[".count).dropLast())],
                  ports.contains(entry.localPort)
            else { return nil }
            return ServerSocket(descriptor: name, localPort: entry.localPort, remotePort: entry.remotePort, state: entry.state)
        }
    }

    /// Waits until the server on `ports` holds nothing but its listeners: every connection it
    /// accepted there has been closed. Connections close asynchronously, and a busy machine
    /// may take long to get there, so this waits for the condition (up to `timeout`) rather
    /// than counting once; it throws `WaitTimeout` naming the sockets still open.
    static func waitForOnlyListeners(on ports: Set<Int>, timeout: Duration = .seconds(60)) async throws {
        var open: [ServerSocket] = []
        try await waitUntil("the connections on ports \(ports.sorted()) to close; still open: \(open)", timeout: timeout, interval: .milliseconds(50)) {
            open = serverSockets(on: ports).filter { !$0.isListening }
            return open.isEmpty
        }
    }

    /// Every TCP socket on the machine (IPv4 and IPv6) by inode: its local and remote port and state.
    private static func tcpTable() -> [String: (localPort: Int, remotePort: Int, state: String)] {
        var entries: [String: (localPort: Int, remotePort: Int, state: String)] = [:]
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9 else { continue }
                entries[String(fields[9])] = (port(fields[1]), port(fields[2]), String(fields[3]))
            }
        }
        return entries
    }

    /// The port of an `ADDRESS:PORT` field of /proc/net/tcp (both in hex).
    private static func port(_ field: Substring) -> Int {
        field.split(separator: ":").last.flatMap { Int($0, radix: 16) } ?? -1
    }

    /// The highest descriptor number this process holds (-1 when /proc cannot be read).
    static var highestNumber: Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int($0) }.max() ?? -1
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

extension BoundPorts {
    /// Every port the server listens on, in every environment: the ports its sockets,
    /// listeners and accepted connections alike, have as their local port.
    var all: Set<Int> {
        var ports: Set<Int> = [http2]
        ports.formUnion([gateway, feedback, control, channelManagement].compactMap { $0 })
        for environment in environments {
            ports.insert(environment.http2)
            ports.formUnion([environment.gateway, environment.feedback, environment.channelManagement].compactMap { $0 })
        }
        return ports
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
