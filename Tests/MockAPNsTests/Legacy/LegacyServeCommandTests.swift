import MockAPNsTestSupport
import Foundation
import XCTest

/// The legacy flags of `mockapns serve`, as users run it.
final class LegacyServeCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    func testLegacyFlagsReachTheGatewayAndThePortsAreReported() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let portsFile = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-\(UUID().uuidString)-ports.json").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "serve", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0",
            "--legacy-parse-error-policy", "statusPacket", "--legacy-max-payload", "256",
            "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let ports = try PortsFile.wait(portsFile, for: "gateway")
        let gateway = try XCTUnwrap(ports["gateway"])
        XCTAssertNotNil(ports["feedback"])
        let unparseable = try LegacyTLSClient.exchange(port: gateway, send: [0x07, 0, 0, 0, 0, 0])
        XCTAssertEqual(unparseable.received, [8, 128, 0, 0, 0, 0], "--legacy-parse-error-policy statusPacket")
        let big = Array(("{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 300) + "\"}}").utf8)
        let tooBig = try LegacyTLSClient.exchange(port: gateway, send: [1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 32] + Legacy.token(1)
            + [UInt8(big.count >> 8), UInt8(big.count & 0xFF)] + big)
        XCTAssertEqual(tooBig.received, [8, 7, 0, 0, 0, 9], "--legacy-max-payload 256")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("gateway=127.0.0.1:\(gateway)"), printed)
    }

    func testOutOfRangeLegacyFlagsAreRefused() throws {
        for arguments in [["--legacy-token-length", "101"], ["--gateway-port", "70000"], ["--legacy-parse-error-policy", "loud"]] {
            let result = try ProcessRunner.run(executable, ["serve"] + arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(arguments[0]), "\(arguments): \(result.stderr)")
        }
    }
}
