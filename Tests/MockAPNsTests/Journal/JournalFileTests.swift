import MockAPNsTestSupport
import Foundation
import XCTest

/// The JSONL journal file of a real `mockapns serve` process.
final class JournalFileTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    private func temporaryPath(_ name: String) -> String { Fixtures.temporaryPath(name) }

    func testJournalFileHoldsEveryEventAfterSIGTERM() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let portsFile = temporaryPath("ports.json")
        let journalFile = temporaryPath("journal.jsonl")
        defer {
            try? FileManager.default.removeItem(atPath: portsFile)
            try? FileManager.default.removeItem(atPath: journalFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "serve", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--control-port", "0",
            "--broadcast-manage-port", "0", "--ports-file", portsFile, "--journal", journalFile, "--cert-dir", Fixtures.certificateDirectory,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let ports = try PortsFile.wait(portsFile, for: "http2")
        let http2 = try XCTUnwrap(ports["http2"])
        let control = try XCTUnwrap(ports["control"])

        let client = CurlClient(port: http2)
        for _ in 0..<5 {
            _ = try client.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        }
        // What the server holds in memory just before the signal: the file must have all of it.
        let statistics = try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/journal"])
        let lastSequence = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(statistics.stdout.utf8)) as? [String: Any])?["lastSequence"] as? Int)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)

        let lines = try String(contentsOfFile: journalFile, encoding: .utf8).split(separator: "\n")
        let events = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let sequences = events.compactMap { $0["seq"] as? Int }
        XCTAssertEqual(sequences, Array(1...sequences.count), "every event, in order, none missing")
        XCTAssertGreaterThanOrEqual(sequences.count, lastSequence)
        XCTAssertEqual(events.filter { $0["type"] as? String == "notification" }.count, 5)
        XCTAssertEqual(events.filter { $0["type"] as? String == "connectionClosed" }.count, 5)
        XCTAssertEqual(events.filter { $0["type"] as? String == "connectionOpened" }.count, 5)
    }
}
