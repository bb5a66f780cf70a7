import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTestSupport
import XCTest
import MockAPNsScenario

/// A client that keeps sending but stops reading must not make the server buffer answers
/// without bound: the server stops taking frames out of nghttp2 and stops reading until the
/// client catches up.
final class SlowClientTests: XCTestCase {
    func testAClientThatNeverReadsCannotGrowTheServersOutput() async throws {
        // Every answer carries 16 KiB, so 3,000 requests would be 48 MiB of output.
        let body = String(repeating: "x", count: 16 * 1024)
        let scenario = #"{"name": "big-answers", "rules": [{"stage": "beforeValidation", "action": {"type": "respond", "status": 200, "body": "\#(body)"}}]}"#
        let bigAnswers = try Scenario.decode(jsonText: scenario)
        let (server, ports) = try await TestServer.start { configuration in
            configuration.requiresAuthentication = false
            configuration.scenario = bigAnswers
        }
        let client = try RobustnessClient(["slow-reader", String(ports.http2), Fixtures.caPath, "3000"])
        defer { client.terminate() }
        let sent = await client.nextLine()
        XCTAssertTrue(sent?.hasPrefix("sent ") == true, "\(sent ?? "nothing")")

        // The server answers what it has read until the brake holds it (without the brake it
        // would answer everything): wait until its output stops growing, or passes the bound,
        // rather than for a fixed time that a busy machine could spend elsewhere. The output
        // must stay within a bound set by socket buffers.
        let bound = 12 * 1024 * 1024
        var produced = 0
        var previous = -1
        try await waitUntil("the server's DATA output to stop growing (\(produced) bytes)", timeout: .seconds(60), interval: .milliseconds(500)) {
            produced = Self.dataBytesSent(server.journal)
            defer { previous = produced }
            return produced > bound || (produced > 0 && produced == previous)
        }
        XCTAssertLessThanOrEqual(produced, bound, "the server produced \(produced) bytes of DATA for a client that reads nothing")
        XCTAssertGreaterThan(produced, 0, "some answers went out before the client's window filled")

        client.send("close")
        _ = await client.finish()
        // The connection's descriptor is released (it closes asynchronously: waited for).
        try await OpenDescriptors.waitForOnlyListeners(on: ports.all, timeout: .seconds(30))
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        try await server.shutdown()
    }

    /// Many clients that stop reading, each owed far more answer bytes than a socket holds:
    /// the `mockapns serve` process's resident memory grows by a bounded amount per
    /// connection, not by what it owes them (the figure for 10,000 such clients, measured with
    /// a release build, is in `Benchmarks/slow-clients.sh`).
    func testManyClientsThatStopReadingLeaveTheServersMemoryBounded() async throws {
        let connections = 150, requests = 100
        let body = String(repeating: "x", count: 16 * 1024)
        let scenarioFile = Fixtures.temporaryPath("big-answers.json")
        let portsFile = Fixtures.temporaryPath("ports.json")
        try #"{"name": "big-answers", "rules": [{"stage": "beforeValidation", "action": {"type": "respond", "status": 200, "body": "\#(body)"}}]}"#
            .write(toFile: scenarioFile, atomically: true, encoding: .utf8)
        addTeardownBlock {
            try? FileManager.default.removeItem(atPath: scenarioFile)
            try? FileManager.default.removeItem(atPath: portsFile)
        }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Fixtures.executable)
        // A small journal, so what grows is the connections' memory, not the record of them.
        server.arguments = [
            "serve", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0",
            "--no-control", "--no-auth", "--journal-capacity", "1000", "--scenario", scenarioFile, "--ports-file", portsFile,
            "--cert-dir", Fixtures.certificateDirectory, "--log-level", "warning",
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let ports = try PortsFile.wait(portsFile, for: "http2")
        let http2 = try XCTUnwrap(ports["http2"])
        let idle = try XCTUnwrap(Self.residentKiB(of: server.processIdentifier))

        let clients = try RobustnessClient(["slow-readers", String(http2), Fixtures.caPath, String(connections), String(requests)])
        defer { clients.terminate() }
        let ready = await clients.nextLine() ?? ""
        XCTAssertTrue(ready.hasPrefix("ready \(connections) "), ready)
        // The server answers what it has read until every connection's output is stalled:
        // wait for its memory to stop moving.
        var stalled = idle
        try await waitUntil("the server's memory settles", timeout: .seconds(60), interval: .milliseconds(500)) {
            let now = Self.residentKiB(of: server.processIdentifier) ?? 0
            defer { stalled = now }
            return now == stalled
        }
        let owed = connections * requests * 16  // KiB of answers the clients never read
        let perConnection = (stalled - idle) / connections
        XCTAssertLessThan(stalled - idle, owed / 3, "grew \(stalled - idle) KiB for \(owed) KiB of unread answers")
        XCTAssertLessThan(perConnection, 800, "\(perConnection) KiB a stalled connection")
        XCTAssertTrue(server.isRunning)

        clients.send("close")
        _ = await clients.finish()
    }

    /// VmRSS of a process, in KiB.
    private static func residentKiB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
    }

    /// The DATA bytes the server has written, by its journal.
    private static func dataBytesSent(_ journal: Journal) -> Int {
        journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).reduce(0) { total, event in
            guard case .http2Frame(let frame) = event.kind, frame.direction == .outbound, frame.type == .data else { return total }
            return total + frame.length
        }
    }
}
