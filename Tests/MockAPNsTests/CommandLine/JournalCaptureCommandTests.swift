import Foundation
import MockAPNsTestSupport
import XCTest
@testable import MockAPNs

/// `mockapns journal --pcap`: from a JSONL file with the server's ports file, the capture is
/// the one the server itself makes of the same events; the flags that cannot go with it
/// are refused.
final class JournalCaptureCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    func testACaptureFromTheJSONLFileAndPortsFileIsTheServersOwn() async throws {
        let (server, ports) = try await TestServer.start()
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        let closed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed = $0.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 1)
        let expected = server.journalCapture()
        let lines = server.journal.events().map(\.json).joined(separator: "\n") + "\n"
        try await server.shutdown()

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-pcap-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try lines.write(toFile: folder + "/journal.jsonl", atomically: true, encoding: .utf8)
        try ports.json.write(toFile: folder + "/ports.json", atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(executable, [
            "journal", "--file", folder + "/journal.jsonl", "--ports", folder + "/ports.json", "--pcap", folder + "/journal.pcapng",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/journal.pcapng"))
        XCTAssertGreaterThan(expected.count, 1000)
        XCTAssertEqual(Array(written), expected)
    }

    func testPcapRefusesTheTimelinesFlags() throws {
        for flags in [["--follow"], ["--json"], ["--type", "notification"], ["--after", "3"]] {
            let result = try ProcessRunner.run(executable, ["journal", "--file", "/dev/null", "--pcap", "/dev/null"] + flags)
            XCTAssertEqual(result.status, 64, "\(flags): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--pcap"), result.stderr)
        }
        let ports = try ProcessRunner.run(executable, ["journal", "--file", "/dev/null", "--ports", "/dev/null"])
        XCTAssertEqual(ports.status, 64, ports.stderr)
        XCTAssertTrue(ports.stderr.contains("--ports goes with --file and --pcap"), ports.stderr)
    }
}
