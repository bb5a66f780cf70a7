import Foundation
import MockAPNsTestSupport
import XCTest

/// `mockapns token`: its clock, and what it says about a key it cannot find.
final class TokenCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    /// The claims of a JWT (base64url JSON between the dots).
    private func claims(_ token: String) throws -> [String: Any] {
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        XCTAssertEqual(parts.count, 3, token)
        var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try XCTUnwrap(Data(base64Encoded: base64), token)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `--clock` takes what `serve --clock` takes and issues the token at that time.
    func testClockSetsTheIssueTimeAsServeReadsIt() throws {
        let cases: [(String, Int)] = [("2026-01-01T00:00:00Z", 1_767_225_600), ("1767225600", 1_767_225_600), ("1970-01-02T00:00:00Z", 86_400)]
        for (clock, seconds) in cases {
            let result = try ProcessRunner.run(executable, ["token", "--key-dir", Fixtures.certificateDirectory, "--clock", clock])
            XCTAssertEqual(result.status, 0, "\(clock): \(result.stderr)")
            XCTAssertEqual(try claims(result.stdout)["iat"] as? Int, seconds, clock)
            XCTAssertEqual(try claims(result.stdout)["iss"] as? String, "TEAM00000A", clock)
        }
        let real = try ProcessRunner.run(executable, ["token", "--key-dir", Fixtures.certificateDirectory, "--clock", "real"])
        let now = Int(Date().timeIntervalSince1970)
        let iat = try XCTUnwrap(try claims(real.stdout)["iat"] as? Int)
        XCTAssertLessThanOrEqual(abs(iat - now), 5)

        let both = try ProcessRunner.run(executable, ["token", "--clock", "real", "--issued-at", "5"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("give --issued-at or --clock, not both"), both.stderr)
        let bad = try ProcessRunner.run(executable, ["token", "--clock", "tomorrow"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--clock takes real, epoch seconds"), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("Usage: mockapns token"), bad.stderr)
    }

    /// A token for a server pinned with --clock is accepted by that server.
    func testATokenAtTheServersPinnedClockIsAccepted() throws {
        let world = try CommandWorld(self)
        let serving = try world.serve(["--ephemeral-ports", "--no-control", "--cert-dir", Fixtures.certificateDirectory, "--clock", "2026-01-01T00:00:00Z"])
        defer { _ = serving.stop() }
        let listening = try serving.line(startingWith: "mockapns listening ")
        let port = try XCTUnwrap(listening.range(of: #"http2=127\.0\.0\.1:(\d+)"#, options: .regularExpression).map { Int(listening[$0].split(separator: ":").last ?? "") })
        func push(_ tokenArguments: [String]) throws -> String {
            let token = try ProcessRunner.run(executable, ["token", "--key-dir", Fixtures.certificateDirectory] + tokenArguments)
            let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return try ProcessRunner.run("curl", [
                "--http2", "-sS", "-w", "%{http_code}", "--cacert", Fixtures.caPath,
                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app", "-d", "{}",
                "https://127.0.0.1:\(try XCTUnwrap(port))/3/device/\(Fixtures.token)",
            ]).stdout
        }
        XCTAssertEqual(try push(["--clock", "2026-01-01T00:00:00Z"]), "200")
        XCTAssertTrue(try push([]).contains("InvalidProviderToken"), "a token issued now is in the pinned clock's future")
    }

    /// An unknown key id in a folder of keys lists the keys there; it does not suggest
    /// generating a set, which would replace them.
    func testAnUnknownKeyIdListsTheKeysInsteadOfSuggestingANewSet() throws {
        let result = try ProcessRunner.run(executable, ["token", "--key-dir", Fixtures.certificateDirectory, "--key-id", "SANDBOX002"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(
            result.stderr.contains("no key SANDBOX002 in \(Fixtures.certificateDirectory): its keys are BOTHENV001, PRODUCT001, SANDBOX001, TEAMBKEY01, TOPICSBX01 (pass one with --key-id)"),
            result.stderr)
        XCTAssertFalse(result.stderr.contains("generate"), result.stderr)
        XCTAssertFalse(result.stderr.contains("first run"), result.stderr)
    }
}
