import Foundation
import MockAPNsTestSupport
import XCTest

/// `mockapns serve` with the control API's access settings, as users run it: the generated
/// token is printed once and nowhere else, a given one is never printed, and bad values are
/// refused with the flag or variable named.
final class ControlSecurityCommandTests: XCTestCase {
    private func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe, [String: Int]) {
        let portsFile = Fixtures.temporaryPath("ports.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.executable)
        process.arguments = [
            "serve", "--http2-port", "0", "--web-push-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0",
            "--control-port", "0", "--ports-file", portsFile, "--cert-dir", Fixtures.certificateDirectory,
        ] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors, try PortsFile.wait(portsFile, for: "control"))
    }

    private func stop(_ process: Process, _ output: Pipe, _ errors: Pipe) -> (stdout: String, stderr: String) {
        kill(process.processIdentifier, SIGTERM)
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (stdout, stderr)
    }

    func testAGeneratedTokenIsPrintedOnceAndShownNowhereElse() throws {
        let (process, output, errors, ports) = try serve(["--control-allow-remote", "--control-host", "127.0.0.1", "--log-level", "debug"])
        defer { if process.isRunning { process.terminate() } }
        let control = ControlClient(port: try XCTUnwrap(ports["control"]))
        // Some traffic, so the journal, the log and the metrics have something to say.
        XCTAssertEqual(try CurlClient(port: try XCTUnwrap(ports["http2"])).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")]).status, 200)
        var shown = ""
        for path in ["/v1/events?limit=1000", "/v1/ports", "/v1/health", "/metrics", "/", "/dashboard/app.js", "/openapi.json"] {
            shown += try control.call("GET", path).text
        }
        XCTAssertEqual(try control.call("POST", "/v1/reset").status, 200, "loopback needs no token")
        let (stdout, stderr) = stop(process, output, errors)

        let line = try XCTUnwrap(stdout.split(separator: "\n").first { $0.contains("control token (generated for this run)") }, stdout)
        let token = try XCTUnwrap(line.split(separator: " ").first { $0.count == 43 }.map(String.init), String(line))
        XCTAssertEqual(stdout.components(separatedBy: token).count - 1, 1, "printed once: \(stdout)")
        XCTAssertFalse(stderr.contains(token), "the log never holds the token")
        XCTAssertFalse(shown.contains(token), "no answer or page holds the token")
    }

    /// The dashboard address on the token line is one a browser opens: listening on every
    /// address it used to print `http://0.0.0.0:PORT/` (answered 421: no client sends that
    /// name) or `http://:::PORT/` (no URL at all).
    func testThePrintedDashboardAddressOpensTheDashboard() throws {
        for (bind, host) in [("0.0.0.0", "127.0.0.1"), ("::", "[::1]")] {
            let (process, output, errors, ports) = try serve(["--control-allow-remote", "--control-host", bind])
            defer { if process.isRunning { process.terminate() } }
            let port = try XCTUnwrap(ports["control"])
            let line = try Self.line(containing: "control token (generated for this run)", from: output)
            let address = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), line)
            XCTAssertEqual(address, "http://\(host):\(port)/#token=<token>", line)
            XCTAssertTrue(line.hasSuffix("(from another machine, with this machine's address)"), line)
            // What the browser asks for: the address without its fragment.
            let page = try ProcessRunner.run("curl", ["-sS", "-g", "-w", "\n%{http_code}", String(address.prefix { $0 != "#" })])
            XCTAssertTrue(page.stdout.hasSuffix("\n200"), "\(bind): \(page.stdout.suffix(300)) \(page.stderr)")
            XCTAssertTrue(page.stdout.contains("<title>MockAPNs</title>"), bind)
            _ = stop(process, output, errors)
        }
    }

    /// Reads `pipe` as the server writes it until a whole line holds `text`.
    private static func line(containing text: String, from pipe: Pipe) throws -> String {
        var received = ""
        while true {
            if let line = received.split(separator: "\n").first(where: { $0.contains(text) }),
               received.contains(line + "\n") {
                return String(line)
            }
            let data = pipe.fileHandleForReading.availableData
            guard !data.isEmpty else { throw NotPrinted(description: "the server closed its output without printing \(text): \(received)") }
            received += String(decoding: data, as: UTF8.self)
        }
    }

    private struct NotPrinted: Error, CustomStringConvertible {
        var description: String
    }

    func testAGivenTokenIsNeverPrinted() throws {
        let token = "given-by-the-environment-0123456789"
        let (process, output, errors, _) = try serve(
            ["--control-allow-remote", "--control-host", "127.0.0.1"], environment: ["MOCKAPNS_CONTROL_TOKEN": token]
        )
        defer { if process.isRunning { process.terminate() } }
        let (stdout, stderr) = stop(process, output, errors)
        XCTAssertFalse(stdout.contains("control token"), stdout)
        XCTAssertFalse((stdout + stderr).contains(token))
    }

    func testBadAccessSettingsAreRefusedByName() throws {
        let cases: [(arguments: [String], environment: [String: String], says: String)] = [
            (["--control-allowed-host", "mockapns.test:2198"], [:], "--control-allowed-host takes a host name or address without a port"),
            (["--control-allowed-origin", "localhost:3000"], [:], "--control-allowed-origin takes an origin like http://localhost:3000"),
            (["--control-token", "short"], [:], "--control-token: a control token must be 16 to 256 characters long, not 5"),
            ([], ["MOCKAPNS_CONTROL_TOKEN": "has spaces in it, sadly"], "MOCKAPNS_CONTROL_TOKEN: a control token may hold only"),
            (["--control-host", "0.0.0.0"], [:], "pass --control-allow-remote"),
        ]
        for (arguments, environment, says) in cases {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Fixtures.executable)
            process.arguments = ["serve", "--http2-port", "0", "--cert-dir", Fixtures.certificateDirectory] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertNotEqual(process.terminationStatus, 0, "\(arguments)")
            XCTAssertTrue(stderr.contains(says), "\(arguments) \(environment): \(stderr)")
            XCTAssertFalse(stderr.contains("has spaces in it"), "a refused token is not repeated")
        }
    }
}
