import MockAPNsTestSupport
import Foundation
import XCTest

/// The `mockapns serve` executable as users run it.
final class ServeCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    private func temporaryPath(_ name: String) -> String { Fixtures.temporaryPath(name) }

    func testServeWritesPortsAnswersCurlAndExitsCleanlyOnSIGTERM() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let portsFile = temporaryPath("ports.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--http2-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0", "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let port = try XCTUnwrap(PortsFile.wait(portsFile, for: "http2")["http2"])
        let response = try CurlClient(port: port).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("mockapns listening http2=127.0.0.1:\(port)"), printed)
    }

    func testConfigurationFileWithUnknownKeyIsRefusedWithItsPath() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let config = temporaryPath("config.json")
        try #"{"http2": {"port": 0, "maxConcurentStreams": 5}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(executable, ["serve", "--config", config])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("$.http2.maxConcurentStreams"), result.stderr)
        XCTAssertTrue(result.stderr.contains("line 1, column 23"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unknown key"), result.stderr)
    }
}
