import Foundation
import MockAPNs
import MockAPNsCore
import XCTest

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
        let baseline = OpenDescriptors.count
        let client = try RobustnessClient(["slow-reader", String(ports.http2), Fixtures.caPath, "3000"])
        defer { client.terminate() }
        let sent = await client.nextLine()
        XCTAssertTrue(sent?.hasPrefix("sent ") == true, "\(sent ?? "nothing")")

        // Give the server time to answer everything it has read (it would, without the
        // brake): the output it produced must stay within a bound set by socket buffers.
        let bound = 12 * 1024 * 1024
        var produced = 0
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline, produced <= bound {
            produced = Self.dataBytesSent(server.journal)
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertLessThanOrEqual(produced, bound, "the server produced \(produced) bytes of DATA for a client that reads nothing")
        XCTAssertGreaterThan(produced, 0, "some answers went out before the client's window filled")

        client.send("close")
        _ = await client.finish()
        let settled = await OpenDescriptors.settle(atMost: baseline)
        XCTAssertLessThanOrEqual(settled, baseline, "the connection's descriptor is released")
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        try await server.shutdown()
    }

    /// The DATA bytes the server has written, by its journal.
    private static func dataBytesSent(_ journal: Journal) -> Int {
        journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).reduce(0) { total, event in
            guard case .http2Frame(let frame) = event.kind, frame.direction == .outbound, frame.type == "DATA" else { return total }
            return total + frame.length
        }
    }
}
