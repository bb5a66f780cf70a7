import MockAPNsTestSupport
import Foundation
import XCTest

/// `mockapns` as a newcomer meets it: started in an empty folder with no credentials, its
/// printed curl line, its logs, and its error messages.
final class EverydayCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    private func emptyWorld() throws -> (directory: String, data: String, environment: [String: String]) {
        let world = try CommandWorld(self)
        return (world.directory, world.data, world.environment)
    }

    private func run(
        _ arguments: [String], directory: String, environment: [String: String], executable: String? = nil
    ) throws -> ProcessResult {
        try CommandWorld(directory: directory, data: "", environment: environment).run(arguments, executable: executable ?? self.executable)
    }

    private let freePorts = [
        "--http2-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--control-port", "0", "--channel-management-port", "0",
        "--web-push-port", "0",
    ]

    func testFirstRunInAnEmptyFolderMakesCredentialsAndItsCurlLineWorks() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let world = try emptyWorld()
        let first = try ServeProcess(executable, freePorts, directory: world.directory, environment: world.environment)
        defer { _ = first.stop() }
        let curlLine = try first.line(startingWith: "try: curl ")
        XCTAssertTrue(first.stdout.contains("generated development credentials in \(world.data)"), first.stdout)
        XCTAssertTrue(first.stdout.contains("CA \(world.data)/ca.pem"), first.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.data + "/client-sandbox.pem"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.directory), [], "nothing is written into the working folder")

        // The printed line, pasted into a shell as it is, shows the answer (a 200 has no body).
        let pasted = try ProcessRunner.run("/bin/sh", ["-c", String(curlLine.dropFirst("try: ".count))])
        XCTAssertTrue(pasted.stdout.hasPrefix("HTTP/2 200"), pasted.stdout + pasted.stderr)
        XCTAssertTrue(pasted.stdout.contains("apns-id: "), pasted.stdout)

        // `mockapns certs dir` names the folder the server uses, for clients' command lines.
        let folder = try run(["certs", "dir", "--control", Self.nobody], directory: world.directory, environment: world.environment)
        XCTAssertEqual(folder.status, 0, folder.stderr)
        XCTAssertEqual(folder.stdout, world.data + "\n")

        // `mockapns token` finds the same keys, and the server takes its token.
        let token = try run(["token"], directory: world.directory, environment: world.environment)
        XCTAssertEqual(token.status, 0, token.stderr)
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(jwt.split(separator: ".").count, 3)
        let port = try XCTUnwrap(curlLine.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression).map { curlLine[$0].dropFirst(10).dropLast() })
        let withToken = try ProcessRunner.run("curl", [
            "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", world.data + "/ca.pem",
            "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app", "-d", "{}",
            "https://127.0.0.1:\(port)/3/device/\(Fixtures.token)",
        ])
        XCTAssertEqual(withToken.stdout, "200", withToken.stderr)

        XCTAssertEqual(first.stop(), 0)
        XCTAssertTrue(first.stderr.contains(" info push c1/s1 http2 token=a1b2c3d4 topic=com.example.app type=alert 200 "), first.stderr)
        XCTAssertTrue(first.stderr.contains(" info open c1 http2 from 127.0.0.1:"), first.stderr)

        // The second run reuses what the first made.
        let second = try ServeProcess(executable, freePorts, directory: world.directory, environment: world.environment)
        _ = try second.line(startingWith: "try: curl ")
        XCTAssertEqual(second.stop(), 0)
        XCTAssertFalse(second.stdout.contains("generated"), second.stdout)
    }

    /// `certs dir` names the folder `serve` started in the same place uses: a checkout's
    /// `./certs-dev` (as an absolute path, usable from anywhere), else the per-user folder,
    /// whether or not it exists yet.
    func testCertsDirNamesTheFolderServeWouldUse() throws {
        let world = try emptyWorld()
        let before = try run(["certs", "dir", "--control", Self.nobody], directory: world.directory, environment: world.environment)
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(before.stdout, world.data + "\n", "the per-user folder, before serve has made it")

        let checkout = world.directory + "/checkout"
        try FileManager.default.createDirectory(atPath: checkout + "/certs-dev", withIntermediateDirectories: true)
        for name in ["server.pem", "server-key.pem", "ca.pem"] {
            try FileManager.default.copyItem(atPath: Fixtures.certificateDirectory + "/" + name, toPath: checkout + "/certs-dev/" + name)
        }
        let inCheckout = try run(["certs", "dir", "--control", Self.nobody], directory: checkout, environment: world.environment)
        XCTAssertEqual(inCheckout.status, 0, inCheckout.stderr)
        XCTAssertEqual(inCheckout.stdout, checkout + "/certs-dev\n")

        var noHome = world.environment
        noHome["HOME"] = nil
        noHome["XDG_DATA_HOME"] = nil
        let nowhere = try run(["certs", "dir", "--control", Self.nobody], directory: world.directory, environment: noHome)
        XCTAssertNotEqual(nowhere.status, 0)
        XCTAssertTrue(nowhere.stderr.contains("HOME and XDG_DATA_HOME are unset"), nowhere.stderr)
    }

    /// A control API address no server answers on (port 1 on loopback: privileged, unused),
    /// so `certs dir` falls back to its own choice whatever runs on this machine's 2198.
    private static let nobody = "http://127.0.0.1:1"

    /// The README's walk: the server started anywhere (its folder the per-user one), a
    /// second terminal in the checkout, whose ./certs-dev the server does not use. `certs dir`
    /// there must name the running server's folder, or the curl line's CA is the wrong one.
    func testCertsDirNamesTheRunningServersFolderWhereverItIsAsked() throws {
        let world = try emptyWorld()
        let checkout = world.directory + "/checkout"
        try FileManager.default.createDirectory(atPath: checkout + "/certs-dev", withIntermediateDirectories: true)
        for name in ["server.pem", "server-key.pem", "ca.pem"] {
            try FileManager.default.copyItem(atPath: Fixtures.certificateDirectory + "/" + name, toPath: checkout + "/certs-dev/" + name)
        }
        let elsewhere = world.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let serving = try ServeProcess(executable, freePorts, directory: elsewhere, environment: world.environment)
        defer { _ = serving.stop() }
        let listening = try serving.line(startingWith: "mockapns listening")
        let control = try XCTUnwrap(listening.firstMatch(of: /control=127\.0\.0\.1:(\d+)/)?.1, listening)

        let asked = try run(["certs", "dir", "--control", "http://127.0.0.1:\(control)"], directory: checkout, environment: world.environment)
        XCTAssertEqual(asked.status, 0, asked.stderr)
        XCTAssertEqual(asked.stdout, world.data + "\n", "the running server's folder, not the checkout's certs-dev")
        // And the CA it names is the one the server's certificate chains to.
        let port = try XCTUnwrap(listening.firstMatch(of: /http2=127\.0\.0\.1:(\d+)/)?.1, listening)
        let pushed = try ProcessRunner.run("curl", [
            "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", world.data + "/ca.pem",
            "--cert", world.data + "/client-sandbox.pem", "--key", world.data + "/client-sandbox-key.pem",
            "-H", "apns-topic: com.example.app", "-d", "{}", "https://127.0.0.1:\(port)/3/device/\(Fixtures.token)",
        ])
        XCTAssertEqual(pushed.stdout, "200", pushed.stderr)

        XCTAssertEqual(serving.stop(), 0)
        let afterwards = try run(["certs", "dir", "--control", "http://127.0.0.1:\(control)"], directory: checkout, environment: world.environment)
        XCTAssertEqual(afterwards.stdout, checkout + "/certs-dev\n", "with no server running, the folder serve would use here")
    }

    func testJSONLogFormatAndQuiet() throws {
        let world = try emptyWorld()
        for quiet in [false, true] {
            let arguments = freePorts + ["--cert-dir", Fixtures.certificateDirectory, "--log-format", "json"] + (quiet ? ["--quiet"] : [])
            let serving = try ServeProcess(executable, arguments, directory: world.directory, environment: world.environment)
            let curlLine = try serving.line(startingWith: "try: curl ")
            let pasted = try ProcessRunner.run("/bin/bash", ["-c", String(curlLine.dropFirst("try: ".count)) + " -sS -o /dev/null -w '%{http_code}'"])
            XCTAssertEqual(pasted.stdout, "200", pasted.stderr)
            XCTAssertEqual(serving.stop(), 0)
            // SwiftNIO prints one diagnostic of its own, outside any log handler, when a task is
            // scheduled on an event loop already shut down (a shutdown race, not a log line).
            let lines = serving.stderr.split(separator: "\n").filter { !$0.hasPrefix("ERROR: Cannot schedule tasks on an EventLoop") }
            XCTAssertFalse(lines.isEmpty)
            let objects = try lines.map { line in
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            }
            let access = objects.filter { $0["access"] != nil }
            if quiet {
                XCTAssertEqual(access.count, 0, serving.stderr)
            } else {
                XCTAssertEqual(access.map { $0["access"] as? String }, ["open", "push", "close"], serving.stderr)
                XCTAssertEqual(access[1]["status"] as? Int, 200)
            }
            XCTAssertTrue(objects.contains { ($0["message"] as? String)?.contains("provider keys loaded") == true }, serving.stderr)
        }
    }

    func testAMissingCredentialNamesTheFileTheFlagAndTheCommand() throws {
        let world = try emptyWorld()
        let result = try run(["serve", "--cert-dir", world.directory] + freePorts, directory: world.directory, environment: world.environment)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(world.directory)/server.pem does not exist"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--cert-dir"), result.stderr)
        XCTAssertTrue(result.stderr.contains("mockapns certs generate --out \(world.directory)"), result.stderr)

        let token = try run(["token"], directory: world.directory, environment: world.environment)
        XCTAssertNotEqual(token.status, 0)
        XCTAssertTrue(token.stderr.contains("AuthKey_SANDBOX001.p8 does not exist"), token.stderr)
        XCTAssertTrue(token.stderr.contains("mockapns serve"), token.stderr)
        XCTAssertTrue(token.stderr.contains("mockapns certs generate"), token.stderr)
    }

    func testScenarioValidateTakesTheWholeScenariosFolder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.root + "/scenarios")
            .filter { $0.hasSuffix(".json") }.sorted().map { "scenarios/" + $0 }
        XCTAssertTrue(files.contains("scenarios/schema.json"))
        let result = try run(["scenario", "validate"] + files, directory: Fixtures.root, environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("scenarios/schema.json: skipped: a JSON Schema, not a scenario"), result.stdout)
        XCTAssertEqual(result.stdout.split(separator: "\n").filter { $0.contains(": ok: ") }.count, files.count - 1, result.stdout)
    }

    /// Off Debian and without Homebrew, install-deps says in one line what to install.
    func testInstallDepsWithoutAPackageManagerNamesThePackages() throws {
        // A PATH holding bash alone: no pkg-config, no apt-get, no brew.
        let bin = Fixtures.temporaryPath("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: bin) }
        try FileManager.default.createSymbolicLink(atPath: bin + "/bash", withDestinationPath: "/bin/bash")
        let result = try run(["--test"], directory: Fixtures.root, environment: ["PATH": bin], executable: Fixtures.root + "/scripts/install-deps.sh")
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no apt-get or brew here"), result.stderr)
        XCTAssertTrue(result.stderr.contains("OpenSSL 3, libnghttp2 and (on Linux) jemalloc development files"), result.stderr)
        XCTAssertTrue(result.stderr.contains("nghttp2's nghttp/h2load/nghttpd"), result.stderr)
    }

    func testJournalFromAnUnreachableControlAPIIsOneLine() throws {
        // Port 9 (discard): nothing listens there on a test machine.
        let result = try run(["journal", "--control", "http://127.0.0.1:9"], directory: Fixtures.root, environment: ProcessInfo.processInfo.environment)
        XCTAssertNotEqual(result.status, 0)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot reach the control API at http://127.0.0.1:9: connection refused"), result.stderr)
        XCTAssertFalse(result.stderr.contains("NSURLErrorDomain"), result.stderr)
    }
}
