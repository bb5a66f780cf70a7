import Foundation
import MockAPNsTestSupport
import XCTest

/// The benchmark scripts take counts: `--help` prints their usage instead of starting a run
/// with "--help" as the count, and anything else that is not a count is refused.
final class BenchmarkScriptTests: XCTestCase {
    private let scripts = ["http2.sh", "legacy.sh", "memory.sh", "slow-clients.sh", "startup.sh", "upstream.sh"]

    func testHelpPrintsTheUsageAndRunsNothing() throws {
        for script in scripts {
            for flag in ["--help", "-h"] {
                let result = try ProcessRunner.run("/bin/bash", [Fixtures.root + "/Benchmarks/" + script, flag], timeout: 10)
                XCTAssertEqual(result.status, 0, "\(script) \(flag): \(result.stderr)")
                XCTAssertTrue(result.stdout.contains("Benchmarks/\(script) ["), "\(script) \(flag): \(result.stdout)")
                XCTAssertFalse(result.stdout.contains("#"), "the comment marks are stripped: \(result.stdout)")
                XCTAssertFalse(result.stderr.contains("swift build"), "\(script) \(flag) started building: \(result.stderr)")
            }
        }
    }

    func testAnArgumentThatIsNotACountIsRefused() throws {
        for script in scripts {
            for argument in ["--requests", "10k", "0", "-5"] {
                let result = try ProcessRunner.run("/bin/bash", [Fixtures.root + "/Benchmarks/" + script, argument], timeout: 10)
                XCTAssertEqual(result.status, 2, "\(script) \(argument): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("\(script): '\(argument)' is not a count"), result.stderr)
                XCTAssertFalse(result.stderr.contains("swift build"), result.stderr)
            }
        }
    }

    /// `paired.sh` takes a path, a count of rounds and builds: `--help` prints its usage, and
    /// anything else it cannot run is refused, saying which argument, before anything starts.
    func testThePairedScriptRefusesWhatItCannotRun() throws {
        let script = Fixtures.root + "/Benchmarks/paired.sh"
        let help = try ProcessRunner.run("/bin/bash", [script, "--help"], timeout: 10)
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("Benchmarks/paired.sh http2|legacy ROUNDS BEFORE AFTER"), help.stdout)
        XCTAssertFalse(help.stdout.contains("#"), help.stdout)
        let executable = "/bin/true"
        let rows: [(arguments: [String], says: String)] = [
            (["http2", "3", executable], "give a path (http2 or legacy), a count of rounds and at least two builds"),
            (["grpc", "3", executable, executable], "'grpc' is not a path to measure"),
            (["legacy", "0", executable, executable], "'0' is not a count of rounds"),
            (["http2", "3", executable, "/nonexistent/mockapns"], "'/nonexistent/mockapns' is not an executable build"),
        ]
        for row in rows {
            let result = try ProcessRunner.run("/bin/bash", [script] + row.arguments, timeout: 10)
            XCTAssertEqual(result.status, 2, "\(row.arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("paired.sh: \(row.says)"), "\(row.arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("== swift build") || result.stderr.contains("apt-get"), "nothing was built or installed: \(result.stderr)")
        }
    }
}
