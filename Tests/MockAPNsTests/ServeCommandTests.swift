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
        process.arguments = ["serve", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0", "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory]
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

    /// Upstream flags that cannot work are refused before anything listens, saying why.
    func testUpstreamMistakesAreRefusedBeforeServing() throws {
        let cases: [([String], String)] = [
            (["--upstream", "http://127.0.0.1:2197"], "APNs is TLS only"),
            (["--upstream", "https://127.0.0.1:2197/3/device"], "path"),
            (["--upstream", "sandbox", "--upstream-key", "k.pem"], "go together"),
            (["--upstream", "sandbox", "--environment", "both"], "--environment both"),
            (["--upstream", "sandbox", "--upstream-ca", "/nonexistent/ca.pem"], "/nonexistent/ca.pem"),
        ]
        for (flags, expected) in cases {
            let result = try ProcessRunner.run(executable, ["serve", "--ephemeral-ports", "--cert-dir", Fixtures.certificateDirectory] + flags)
            XCTAssertNotEqual(result.status, 0, "\(flags)")
            XCTAssertTrue(result.stderr.contains(expected), "\(flags): \(result.stderr)")
        }
    }

    /// `--environment both`: a sandbox and a production listener for each protocol, in the
    /// ports file, with the production ports from their own flags.
    func testServeBothEnvironmentsReportsEachListener() throws {
        let portsFile = temporaryPath("ports.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--environment", "both", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0",
                             "--broadcast-manage-port", "0", "--no-control", "--production-http2-port", "0", "--production-gateway-port", "0",
                             "--production-feedback-port", "0", "--production-broadcast-manage-port", "0",
                             "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory, "--quiet"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        _ = try PortsFile.wait(portsFile, for: "http2")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: portsFile))) as? [String: Any])
        let environments = try XCTUnwrap(json["environments"] as? [String: [String: Int]])
        XCTAssertEqual(Set(environments.keys), ["sandbox", "production"])
        for environment in ["sandbox", "production"] {
            XCTAssertEqual(Set(environments[environment]?.keys.map { $0 } ?? []), ["http2", "gateway", "feedback", "channelManagement"], environment)
        }
        let production = try XCTUnwrap(environments["production"]?["http2"])
        XCTAssertNotEqual(production, json["http2"] as? Int)
        let refused = try CurlClient(port: production, certificate: "sandbox")
            .send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(refused.body, #"{"reason":"BadCertificateEnvironment"}"#)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("production: http2=127.0.0.1:\(production)"), printed)
    }

    func testAProductionPortFlagOutOfRangeIsRefused() throws {
        let result = try ProcessRunner.run(executable, ["serve", "--environment", "both", "--production-http2-port", "70000"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--production-http2-port must be 0-65535"), result.stderr)
        let bad = try ProcessRunner.run(executable, ["serve", "--environment", "staging"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("both"), bad.stderr)
    }
}
