import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import Synchronization
import XCTest
import MockAPNsLegacy

/// Builds legacy frames and waits for what the server records.
enum Legacy {
    /// A well-formed 32-byte token: `seed` repeated.
    static func token(_ seed: UInt8) -> [UInt8] {
        [UInt8](repeating: seed, count: 32)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    /// A command-2 frame with identifier, expiry 0 and priority 10.
    static func frame(identifier: UInt32, token: [UInt8]) -> [UInt8] {
        LegacyNotification(command: .frame, identifier: identifier, expiry: 0, token: token, payload: payload, priority: .immediate).encoded()
    }

    /// A command-1 frame.
    static func enhanced(identifier: UInt32, token: [UInt8]) -> [UInt8] {
        LegacyNotification(command: .enhanced, identifier: identifier, expiry: 0, token: token, payload: payload).encoded()
    }

    /// A command-0 frame.
    static func simple(token: [UInt8]) -> [UInt8] {
        LegacyNotification(command: .simple, token: token, payload: payload).encoded()
    }

    /// Waits until the server has recorded `count` closed gateway connections.
    static func reports(_ server: MockAPNsServer, count: Int = 1, timeout: Double = 10) async throws -> [LegacyConnectionReport] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let connections = server.legacyActivity.connections
            if connections.count >= count { return connections }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("the server recorded \(server.legacyActivity.connections.count) gateway connections, expected \(count)")
        return server.legacyActivity.connections
    }
}

/// Keeps every log message, so tests can check what the server told its operator.
final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger writing here, at notice level and above unless told otherwise.
    func logger(level: Logger.Level = .notice) -> Logger {
        var logger = Logger(label: "mockapns-test") { _ in CapturingLogHandler(sink: self) }
        logger.logLevel = level
        return logger
    }
}

struct CapturingLogHandler: LogHandler {
    let sink: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        sink.append("\(event.level): \(event.message)")
    }
}

/// Starts a server with its legacy listeners on ephemeral ports and, optionally, a logger.
enum LegacyTestServer {
    static func start(
        logger: Logger? = nil,
        _ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> (MockAPNsServer, BoundPorts) {
        let configuration = TestServer.configuration(adjust)
        let server = logger.map { MockAPNsServer(configuration: configuration, logger: $0) }
            ?? MockAPNsServer(configuration: configuration)
        let ports = try await server.start()
        return (server, ports)
    }
}
