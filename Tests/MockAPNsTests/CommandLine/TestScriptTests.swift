import Foundation
import MockAPNsTestSupport
import XCTest

/// `scripts/test.sh`'s stage bookkeeping, on stages of our own (sourcing the script defines
/// its functions and runs nothing): one failing stage must not hide the others' results, a
/// stage that skipped itself must not read as passed, and the exit status must still fail.
final class TestScriptTests: XCTestCase {
    private func runStages(_ body: String) throws -> ProcessResult {
        let script = """
            source "$1"
            trap 'rm -rf "$stage_log_dir"' EXIT
            ok() { echo "work"; echo "interop: 3 passed, 0 failed, 0 skipped"; }
            broken() { echo "Executed 12 tests, with 1 failure (0 unexpected) in 1.0 (1.0) seconds"; return 3; }
            fuzzless() { echo "fuzz: skipped: swiftc cannot build a fuzzer here"; }
            partly() { echo "release test: passed: bare root"; echo "release test: SKIPPED: podman cannot run"; }
            units() { echo "h2spec: skipped: not installed"; echo "Executed 5 tests, with 0 failures (0 unexpected) in 1.0 (1.0) seconds"; }
            \(body)
            print_summary
            """
        return try ProcessRunner.run("/bin/bash", ["-c", script, "stages", Fixtures.root + "/scripts/test.sh"], timeout: 30)
    }

    func testEveryStageRunsAfterAFailureAndTheSummarySaysWhatEachDid() throws {
        let result = try runStages("""
            run_stage install - ok
            run_stage build - broken
            run_stage "swift test" build ok
            run_stage release - partly
            run_stage readme - ok
            run_stage units - units
            run_stage fuzz - fuzzless
            """)
        XCTAssertEqual(result.status, 1, "a failed stage fails the run: \(result.stdout)")
        XCTAssertFalse(result.stdout.contains("== install: scripts/install-deps.sh"), "sourcing ran the suite: \(result.stdout)")
        let summary = try XCTUnwrap(result.stdout.components(separatedBy: "== summary\n").last)
        // Spaces squeezed, and durations (whole seconds: a quick stage may straddle one) as "Ns".
        let lines = summary.split(separator: "\n").map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                .replacingOccurrences(of: #"\b[0-9]+s\b"#, with: "Ns", options: .regularExpression)
        }
        XCTAssertEqual(lines, [
            "install passed Ns interop: 3 passed, 0 failed, 0 skipped",
            "build FAILED Ns exit status 3; Executed 12 tests, with 1 failure (0 unexpected) in 1.0 (1.0) seconds",
            "swift test skipped Ns needs the build stage, which failed",
            "release passed Ns (skipped: podman cannot run)",
            "readme passed Ns interop: 3 passed, 0 failed, 0 skipped",
            "units passed Ns Executed 5 tests, with 0 failures (0 unexpected) in 1.0 (1.0) seconds (skipped: not installed)",
            "fuzz skipped Ns swiftc cannot build a fuzzer here",
            "test.sh: 1 of 7 stages FAILED: build",
        ], summary)
        // The stages after the failure ran: their output is there, not only their summary line.
        XCTAssertEqual(result.stdout.components(separatedBy: "work\n").count - 1, 2, result.stdout)
    }

    func testAllPassingOrSkippedExitsZeroWithEachStagesDuration() throws {
        let result = try runStages("""
            run_stage build - ok
            run_stage wait - sleep 1
            run_stage fuzz - fuzzless
            """)
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertTrue(result.stdout.contains("== wait: sleep 1"), "a command's stage header names it: \(result.stdout)")
        let waitLine = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("  wait ") }, result.stdout)
        let seconds = waitLine.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first.map(String.init) ?? ""
        XCTAssertTrue(["1s", "2s", "3s"].contains(seconds), "the duration is measured in whole seconds: \(waitLine)")
        XCTAssertTrue(result.stdout.contains("test.sh: every stage passed or was skipped (3 stages)"), result.stdout)
    }

    /// CI runs the README's command, and the Swift tests' output is still tee'd where CI reads
    /// its closing line.
    func testCIRunsTheScriptAndTheSwiftTestsKeepTheirLog() throws {
        let ci = try String(contentsOfFile: Fixtures.root + "/.ci/run", encoding: .utf8)
        XCTAssertTrue(ci.contains("exec scripts/test.sh"), ci)
        let script = try String(contentsOfFile: Fixtures.root + "/scripts/test.sh", encoding: .utf8)
        XCTAssertTrue(script.contains("swift test --skip-build 2>&1 | tee .build/swift-test.log"), "the Swift tests' log")
        let syntax = try ProcessRunner.run("/bin/bash", ["-n", Fixtures.root + "/scripts/test.sh"], timeout: 10)
        XCTAssertEqual(syntax.status, 0, syntax.stderr)
    }
}
