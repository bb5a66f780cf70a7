@testable import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTestSupport
import XCTest

/// While the journal's file is behind, provider connections are not read: the server slows
/// the client down instead of leaving events out of the file. Real curl over real TLS.
final class JournalReadGateTests: XCTestCase {
    func testAClosedGateHoldsAProviderConnectionUntilItOpens() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let gate = server.observation.readGate
        gate.close()

        let answer = Task.detached {
            try CurlClient(port: ports.http2, certificate: "sandbox").send(path: "/3/device/\(Fixtures.token)")
        }
        // Nothing the client sent is read while the gate is closed, so nothing is recorded.
        do {
            let early = try await server.waitForNotifications(count: 1, timeout: .milliseconds(600))
            XCTFail("the request was read through a closed gate: \(early)")
        } catch {
            XCTAssertEqual(error.found.count, 0, "the request was read through a closed gate")
        }

        gate.open()
        let response = try await answer.value
        XCTAssertEqual(response.status, 200)
        let records = try await server.waitForNotifications(count: 1, timeout: .seconds(5))
        XCTAssertEqual(records.map(\.status), [200])
    }

    func testTheControlPortAndTheFeedbackServiceAreNotHeld() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        server.observation.readGate.close()
        defer { server.observation.readGate.open() }
        // The control API answers, so a test can still look at the journal.
        let health = try ProcessRunner.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}",
                                                    "http://127.0.0.1:\(try XCTUnwrap(ports.control))/v1/health"])
        XCTAssertEqual(health.stdout, "200")
        // The feedback service sends its tuples and closes.
        let feedback = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertTrue(feedback.handshakeSucceeded)
        XCTAssertTrue(feedback.closed)
    }
}
