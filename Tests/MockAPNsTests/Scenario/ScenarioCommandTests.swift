import MockAPNsTestSupport
import Foundation
import XCTest

/// `mockapns scenario validate` and `mockapns serve --scenario`, as users run them.
final class ScenarioCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    private func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-scenario-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testEveryExampleValidates() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let folder = Fixtures.root + "/scenarios"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted().map { folder + "/" + $0 }
        let result = try ProcessRunner.run(executable, ["scenario", "validate"] + files)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, files.count, result.stdout)
        XCTAssertTrue(result.stdout.contains("flaky-503-then-ok.json: ok: \"flaky-503-then-ok\", 2 rules"), result.stdout)
    }

    /// A broken file: exit 1, and each mistake named by file, line, column, JSON path and
    /// what was expected there.
    func testABrokenFilePointsAtEachMistake() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let path = try write("""
            {
              "name": "typos",
              "rules": [
                { "match": { "protocol": ["http2"] }, "action": { "type": "reject", "reason": "Unregistered" } },
                { "action": { "type": "goAway", "errorCode": "NOPE" } }
              ]
            }
            """)
        let result = try ProcessRunner.run(executable, ["scenario", "validate", path])
        XCTAssertEqual(result.status, 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, result.stderr)
        XCTAssertTrue(lines[0].hasPrefix("\(path):4:18: $.rules[0].match.protocol: unknown key \"protocol\""), lines[0])
        XCTAssertTrue(lines[0].contains("protocols"), "names the keys allowed there: \(lines[0])")
        XCTAssertTrue(lines[1].hasPrefix("\(path):5:50: $.rules[1].action.errorCode: expected an integer"), lines[1])
        XCTAssertTrue(lines[1].contains("\"REFUSED_STREAM\""), lines[1])
        XCTAssertTrue(lines[1].hasSuffix("found \"NOPE\""), lines[1])
    }

    /// A file that is not UTF-8 is refused with the offset of its first bad byte, by
    /// `scenario validate` and by `serve --config`.
    func testAFileThatIsNotUTF8NamesItsFirstBadByte() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let path = try write("")
        try Data(Array(#"{"name": "caf"#.utf8) + [0xE9] + Array(#""}"#.utf8)).write(to: URL(fileURLWithPath: path))
        let validated = try ProcessRunner.run(executable, ["scenario", "validate", path])
        XCTAssertEqual(validated.status, 1)
        XCTAssertTrue(validated.stderr.contains("not valid UTF-8: byte 0xE9 at byte offset 13"), validated.stderr)
        let served = try ProcessRunner.run(executable, ["serve", "--http2-port", "0", "--config", path])
        XCTAssertNotEqual(served.status, 0)
        XCTAssertTrue(served.stderr.contains("\(path): the file is not valid UTF-8: byte 0xE9 at byte offset 13"), served.stderr)
    }

    func testServeRefusesABrokenScenario() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: executable), "build mockapns first: \(executable)")
        let path = try write(#"{"name": "x", "seed": -1}"#)
        let result = try ProcessRunner.run(executable, ["serve", "--http2-port", "0", "--scenario", path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(path):1:23: $.seed: expected an integer from 0"), result.stderr)
    }
}
