import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The `journal` and `control` objects of a configuration file.
final class JournalConfigurationTests: XCTestCase {
    func testJournalAndControlKeysAreRead() throws {
        let configuration = try MockAPNsConfiguration.parse(json: """
            {"journal": {"capacity": 500, "file": "/tmp/j.jsonl", "frames": false, "redactTokens": true,
                         "fileWhenBehind": "gap", "fileBuffer": 1024},
             "control": {"port": 0, "host": "127.0.0.2", "allowNonLoopback": false}}
            """)
        XCTAssertEqual(configuration.journalCapacity, 500)
        XCTAssertEqual(configuration.journalFile, "/tmp/j.jsonl")
        XCTAssertFalse(configuration.recordsFrames)
        XCTAssertTrue(configuration.journal.redactsTokens)
        XCTAssertEqual(configuration.journal.fileWhenBehind, .gap)
        XCTAssertEqual(configuration.journal.fileBufferEvents, 1024)
        XCTAssertEqual(MockAPNsConfiguration().journal.fileWhenBehind, .wait, "complete by default")
        XCTAssertEqual(configuration.controlPort, 0)
        XCTAssertEqual(configuration.controlHost, "127.0.0.2")
        XCTAssertNoThrow(try configuration.control.checkHost(), "127.0.0.0/8 is loopback")
    }

    func testUnknownJournalKeyIsNamedWithItsPath() {
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"journal": {"capacty": 5}}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.journal.capacty"), "\(error)")
        }
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"journal": {"fileWhenBehind": "drop"}}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.journal.fileWhenBehind"), "\(error)")
            XCTAssertTrue("\(error)".contains("wait"), "the choices are named: \(error)")
        }
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"control": {"port": 70000}}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.control.port"), "\(error)")
        }
    }

    func testAnEmbeddedServerRunsNoControlAPIUnlessAsked() async throws {
        let (server, ports) = try await TestServer.start()
        XCTAssertNil(ports.control)
        try await server.shutdown()
    }

    func testNonLoopbackControlHostStopsTheServerFromStarting() async throws {
        let configuration = TestServer.configuration {
            $0.controlPort = 0
            $0.controlHost = "0.0.0.0"
        }
        let server = MockAPNsServer(configuration: configuration)
        do {
            _ = try await server.start()
            XCTFail("a non-loopback control host must be asked for")
        } catch {
            XCTAssertTrue("\(error)".contains("--control-allow-remote"), "\(error)")
        }
        try await server.shutdown(gracePeriod: .zero)
    }
}
