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
}
