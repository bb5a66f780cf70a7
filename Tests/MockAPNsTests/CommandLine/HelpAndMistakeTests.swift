import Foundation
import MockAPNsTestSupport
import XCTest

/// What `--help` says and how a mistake on the command line is answered.
final class HelpAndMistakeTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    private func help(_ command: [String], columns: Int) throws -> String {
        let result = try ProcessRunner.run("/usr/bin/env", ["COLUMNS=\(columns)", executable] + command + ["--help"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    /// The overview is written as one paragraph for the help to wrap, never broken
    /// mid-sentence by the source: on a wide terminal it is one line, on a narrow one it fits.
    func testTheOverviewIsWrappedByTheTerminalNotTheSource() throws {
        let wide = try help(["serve"], columns: 400)
        let overview = try XCTUnwrap(wide.components(separatedBy: "USAGE:").first)
        let paragraph = overview.split(separator: "\n").filter { !$0.hasPrefix("OVERVIEW:") }
        XCTAssertEqual(paragraph.count, 1, overview)
        XCTAssertTrue(paragraph.first?.hasPrefix("Settings come from the defaults") == true, overview)
        XCTAssertTrue(paragraph.first?.hasSuffix("before the server exits.") == true, overview)
        let narrow = try XCTUnwrap(try help(["serve"], columns: 60).components(separatedBy: "USAGE:").first)
        XCTAssertGreaterThan(narrow.split(separator: "\n").count, 4, narrow)
        XCTAssertTrue(narrow.split(separator: "\n").allSatisfy { $0.count <= 60 }, narrow)
    }

    /// Each option states its default at most once (ArgumentParser adds "(default: …)" and
    /// "(values: …)" itself where it knows them).
    func testEveryOptionStatesItsDefaultOnce() throws {
        for command in [["serve"], ["journal"], ["token"], ["health"], ["certs", "generate"]] {
            let text = try help(command, columns: 1000)
            let options = text.split(separator: "\n").filter { $0.hasPrefix("  -") }
            XCTAssertFalse(options.isEmpty, text)
            for line in options {
                let defaults = line.components(separatedBy: "default").count - 1
                XCTAssertLessThanOrEqual(defaults, 1, "\(command): \(line)")
                let valueLists = line.components(separatedBy: "(values:").count - 1
                XCTAssertLessThanOrEqual(valueLists, 1, "\(command): \(line)")
            }
        }
    }

    /// A value out of range is refused before anything starts, with the subcommand's usage
    /// (not the top-level list of subcommands) and the accepted range.
    func testValueMistakesAreToldWithTheSubcommandsUsage() throws {
        let cases: [([String], String)] = [
            (["--http2-port", "70000"], "--http2-port must be 0-65535, not 70000"),
            (["--gateway-port", "65536"], "--gateway-port must be 0-65535, not 65536"),
            (["--control-port", "65536"], "--control-port must be 0-65535, not 65536"),
            (["--channel-management-port", "70000"], "--channel-management-port must be 0-65535, not 70000"),
            (["--journal-capacity", "0"], "--journal-capacity must be at least 1, not 0"),
            (["--journal-capacity-bytes", "512K"], "--journal-capacity-bytes must be at least 1M (1048576 bytes), not 512K"),
            (["--journal-capacity-bytes", "lots"], "The value 'lots' is invalid for '--journal-capacity-bytes <bytes>'"),
            (["--legacy-max-payload", "0"], "--legacy-max-payload must be 1-65535, not 0"),
            (["--legacy-max-payload", "65536"], "--legacy-max-payload must be 1-65535, not 65536"),
            (["--legacy-token-length", "101"], "--legacy-token-length must be 1-100, not 101"),
            (["--tls-handshake-timeout", "0"], "--tls-handshake-timeout must be from 0.001 to 86400 seconds, not 0.0"),
            (["--max-concurrent-streams", "0"], "--max-concurrent-streams must be at least 1, not 0"),
            (["--clock", "yesterday"], "--clock takes real, epoch seconds"),
            (["--http2-port", "abc"], "The value 'abc' is invalid for '--http2-port <port>'"),
        ]
        for (arguments, message) in cases {
            let result = try ProcessRunner.run(executable, ["serve"] + arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("Usage: mockapns serve"), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("SUBCOMMANDS"), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments): nothing starts")
        }
    }

    /// `--legacy-max-payload` takes what its help says (1-65535), and the help says the
    /// default and Apple's two historical limits without offering them as the only choices.
    func testLegacyMaxPayloadHelpAgreesWithWhatIsAccepted() throws {
        let text = try help(["serve"], columns: 1000)
        let start = try XCTUnwrap(text.range(of: "--legacy-max-payload <bytes>"))
        let end = text.range(of: "\n  -", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
        let line = text[start.lowerBound..<end]
        XCTAssertTrue(line.contains("1-65535"), String(line))
        XCTAssertTrue(line.contains("default 2048"), String(line))
        let world = try CommandWorld(self)
        for value in ["1", "300", "65535"] {
            let serving = try world.serve(["--ephemeral-ports", "--no-control", "--cert-dir", Fixtures.certificateDirectory, "--legacy-max-payload", value])
            _ = try serving.line(startingWith: "mockapns listening ")
            XCTAssertEqual(serving.stop(), 0, "\(value): \(serving.stderr)")
        }
    }

    /// The first start in an empty world fails on a busy port: the credentials it generated
    /// are announced all the same, and the next start reuses them without a word.
    func testAFailedFirstStartStillSaysItGeneratedTheCredentials() async throws {
        let (busy, ports) = try await TestServer.start()
        let world = try CommandWorld(self)
        let failed = try world.run(["serve", "--http2-port", "\(ports.http2)", "--gateway-port", "0", "--feedback-port", "0", "--broadcast-manage-port", "0", "--control-port", "0"])
        try await busy.shutdown()
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertTrue(failed.stderr.contains("127.0.0.1:\(ports.http2): Address already in use"), failed.stderr)
        XCTAssertTrue(failed.stdout.contains("mockapns generated development credentials in \(world.data)"), failed.stdout)
        let ca = try String(contentsOfFile: world.data + "/ca.pem", encoding: .utf8)

        let second = try world.serve(["--ephemeral-ports"])
        _ = try second.line(startingWith: "try: curl ")
        XCTAssertEqual(second.stop(), 0, second.stderr)
        XCTAssertFalse(second.stdout.contains("generated"), second.stdout)
        XCTAssertTrue(second.stdout.contains("CA \(world.data)/ca.pem"), second.stdout)
        XCTAssertEqual(try String(contentsOfFile: world.data + "/ca.pem", encoding: .utf8), ca, "the set is kept")
    }
}

/// The command line's conventions: the everyday flags first, the build's commit in the
/// version, the listening line said once.
final class CommandLineConventionTests: XCTestCase {
    /// `serve --help` opens with the flags most runs set (where it listens, the credentials,
    /// authentication), before the journal, control, delivery and legacy groups.
    func testServeHelpListsTheEverydayFlagsFirst() throws {
        let result = try ProcessRunner.run("/usr/bin/env", ["COLUMNS=100", Fixtures.executable, "serve", "--help"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let groups = lines.filter { $0.hasSuffix(":") && $0 == $0.uppercased() && !$0.hasPrefix(" ") }
        XCTAssertEqual(groups, ["EVERYDAY:", "SANDBOX AND PRODUCTION:", "CONNECTIONS AND THE CLOCK:", "LEGACY GATEWAY AND FEEDBACK:",
                                "JOURNAL AND CONTROL API:", "DELIVERY AND FORWARDING:", "FLEET (REPLICAS SHARING THEIR STATE):",
                                "UPSTREAM MODE (IN FRONT OF THE REAL APNS):",
                                "LOGGING:", "OPTIONS:"], result.stdout)
        let everyday = try XCTUnwrap(lines.firstIndex(of: "EVERYDAY:"))
        let next = try XCTUnwrap(lines.firstIndex(of: "SANDBOX AND PRODUCTION:"))
        let firstGroup = lines[everyday..<next].joined(separator: "\n")
        for flag in ["--host <address>", "--http2-port <port>", "--gateway-port <port>", "--ephemeral-ports", "--cert-dir <folder>", "--no-auth",
                     "--config <file>", "--scenario <file>", "--control-port <port>", "--channel-management-port <port>"] {
            XCTAssertTrue(firstGroup.contains(flag), "\(flag) is not among the everyday flags:\n\(firstGroup)")
        }
        XCTAssertLessThan(everyday, 15, "the everyday flags start at line \(everyday)")
    }

    /// Every value placeholder says what value is expected (`<port>`, `<seconds>`, `<url>`,
    /// `<on|off>`), never the flag's own name again (`--batch-delay <batch-delay>`).
    func testNoPlaceholderRepeatsItsFlagsName() throws {
        let result = try ProcessRunner.run("/usr/bin/env", ["COLUMNS=1000", Fixtures.executable, "serve", "--help"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let repeated = result.stdout.matches(of: /--([a-z0-9-]+) <([^>]+)>/).filter { $0.1 == $0.2 }.map { "--\($0.1) <\($0.2)>" }
        XCTAssertEqual(repeated, [], result.stdout)
        for flag in ["--batch-delay <seconds>", "--forward-timeout <seconds>", "--forward-url <url>", "--delivery-model <on|off>",
                     "--journal-file-when-behind <wait|gap>", "--upstream <sandbox|production|url>", "--record-scenario <path>"] {
            XCTAssertTrue(result.stdout.contains(flag), "\(flag):\n\(result.stdout)")
        }
    }

    /// The channel management listener has one name on the command line, in the configuration
    /// file and in the listening line (`channelManagement=`); the former flags and key still
    /// work, unlisted, as do `--redact-tokens` beside `--journal-provider-tokens redacted`.
    func testFormerNamesAreAcceptedButListedOnlyAsAliases() throws {
        let help = try ProcessRunner.run("/usr/bin/env", ["COLUMNS=1000", Fixtures.executable, "serve", "--help"]).stdout
        XCTAssertTrue(help.contains("--channel-management-port <port>"), help)
        XCTAssertTrue(help.contains("Its former name, --broadcast-manage-port, is accepted too."), help)
        XCTAssertFalse(help.contains("--broadcast-manage-port <port>"), help)
        XCTAssertFalse(help.contains("--redact-tokens "), help)
        XCTAssertTrue(help.contains("--redact-tokens, an older spelling of redacted, is accepted too"), help)

        let world = try CommandWorld(self)
        for (flag, key) in [("--channel-management-port", "channelManagementPort"), ("--broadcast-manage-port", "managePort")] {
            let configuration = world.directory + "/\(key).json"
            try #"{"broadcast": {"\#(key)": 0}}"#.write(toFile: configuration, atomically: true, encoding: .utf8)
            for arguments in [[flag, "0"], ["--config", configuration]] {
                let serving = try ServeProcess(Fixtures.executable, [
                    "--http2-port", "0", "--gateway-port", "0", "--feedback-port", "0", "--control-port", "0", "--web-push-port", "0",
                    "--cert-dir", Fixtures.certificateDirectory, "--redact-tokens",
                ] + arguments, directory: world.directory, environment: world.environment)
                let listening = try serving.line(startingWith: "mockapns listening")
                XCTAssertNotNil(listening.firstMatch(of: /channelManagement=127\.0\.0\.1:\d+/), "\(arguments): \(listening)")
                XCTAssertEqual(serving.stop(), 0, serving.stderr)
            }
        }
    }

    /// `--version` names the version, and the commit when the build came from a checkout
    /// (the tests run from one, so it must be there).
    func testVersionNamesTheCommit() throws {
        let result = try ProcessRunner.run(Fixtures.executable, ["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = result.stdout.trimmingCharacters(in: .newlines)
        XCTAssertNotNil(line.range(of: #"^\d+\.\d+\.\d+ \(commit [0-9a-f]{12}(, modified)?\)$"#, options: .regularExpression), line)
    }

    /// The listening line is said once: on standard output, where scripts wait for it, and
    /// not again in the log on standard error.
    func testTheListeningLineIsSaidOnce() throws {
        let world = try CommandWorld(self)
        let serving = try world.serve(["--ephemeral-ports", "--no-control", "--cert-dir", Fixtures.certificateDirectory])
        _ = try serving.line(startingWith: "mockapns listening ")
        XCTAssertEqual(serving.stop(), 0, serving.stderr)
        let said = (serving.stdout + serving.stderr).components(separatedBy: "mockapns listening").count - 1
        XCTAssertEqual(said, 1, "stdout: \(serving.stdout)\nstderr: \(serving.stderr)")
    }
}

/// The exit statuses `mockapns --help` documents, each from a real run.
final class ExitStatusTests: XCTestCase {
    func testEachDocumentedExitStatusIsTheOneGiven() throws {
        let help = try ProcessRunner.run("/usr/bin/env", ["COLUMNS=400", Fixtures.executable, "--help"])
        XCTAssertTrue(help.stdout.contains("Exit status: 0 when the command did what it was asked"), help.stdout)
        XCTAssertTrue(help.stdout.contains("64 for a mistake on the command line"), help.stdout)

        XCTAssertEqual(try ProcessRunner.run(Fixtures.executable, ["--version"]).status, 0)
        let mistake = try ProcessRunner.run(Fixtures.executable, ["serve", "--http2-port", "70000"])
        XCTAssertEqual(mistake.status, 64, mistake.stderr)
        XCTAssertTrue(mistake.stderr.contains("--http2-port must be 0-65535"), mistake.stderr)
        // Nothing listens on port 1 of the loopback: not ready.
        let health = try ProcessRunner.run(Fixtures.executable, ["health", "--control", "http://127.0.0.1:1"])
        XCTAssertEqual(health.status, 1, health.stderr)
        let missing = try ProcessRunner.run(Fixtures.executable, ["report", "--file", "/nonexistent/journal.jsonl"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
    }
}
