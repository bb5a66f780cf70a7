import Foundation
import MockAPNsTestSupport
import XCTest

/// `mockapns serve` as an ordinary user (no capabilities), as in a container or on a laptop:
/// it must take connections, not only bind its ports.
final class UnprivilegedServeTests: XCTestCase {
    /// The unprivileged user the server runs as when the tests run as root.
    private let nobody: UInt32 = 65534

    func testAnUnprivilegedServerAnswersAPush() throws {
        let folder = Fixtures.temporaryPath("unprivileged")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let generated = try ProcessRunner.run(Fixtures.executable, ["certs", "generate", "--out", folder])
        XCTAssertEqual(generated.status, 0, generated.stderr)

        var command = [Fixtures.executable, "serve", "--ephemeral-ports", "--cert-dir", folder, "--ports-file", folder + "/ports.json"]
        if getuid() == 0 {
            // Root may set socket options an ordinary user may not: drop to nobody.
            _ = try ProcessRunner.locate("setpriv")
            for name in try FileManager.default.subpathsOfDirectory(atPath: folder) + [""] {
                XCTAssertEqual(chown(folder + "/" + name, nobody, nobody), 0, name)
            }
            command = ["setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--inh-caps=-all"] + command
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ProcessRunner.locate(command[0]))
        process.arguments = Array(command.dropFirst())
        process.environment = ["HOME": folder, "PATH": "/usr/bin:/bin"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let ports = try PortsFile.wait(folder + "/ports.json", for: "control")
        let push = try ProcessRunner.run("curl", [
            "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", folder + "/ca.pem",
            "--cert", folder + "/client-sandbox.pem", "--key", folder + "/client-sandbox-key.pem",
            "-H", "apns-topic: com.example.app", "-d", "{}",
            "https://127.0.0.1:\(try XCTUnwrap(ports["http2"]))/3/device/\(Fixtures.token)",
        ])
        XCTAssertEqual(push.stdout, "200", push.stderr)
        let health = try ProcessRunner.run(Fixtures.executable, ["health", "--control", "http://127.0.0.1:\(try XCTUnwrap(ports["control"]))"])
        XCTAssertEqual(health.status, 0, health.stderr)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
