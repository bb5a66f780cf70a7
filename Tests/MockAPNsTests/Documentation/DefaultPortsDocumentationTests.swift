import Foundation
import MockAPNs
import MockAPNsTestSupport
import XCTest

/// Where a newcomer meets the default ports, every listener `mockapns serve` opens is there:
/// the image's EXPOSE, the containers guide's port table, getting started's sample listening
/// line (as the server writes it). The defaults are read from `serve --help`, the binary's own.
final class DefaultPortsDocumentationTests: XCTestCase {
    /// The listeners of a default `serve`, by their flags, with the defaults the help states.
    private func defaultPorts() throws -> [String: Int] {
        let help = try ProcessRunner.run("/usr/bin/env", ["COLUMNS=1000", Fixtures.executable, "serve", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        var ports: [String: Int] = [:]
        for flag in ["http2", "gateway", "feedback", "control", "channel-management", "web-push"] {
            // The flag's entry: its line and, where the name is long, the help on the lines after.
            let start = try XCTUnwrap(help.stdout.range(of: "  --\(flag)-port <port>"), flag)
            let rest = help.stdout[start.upperBound...]
            let entry = rest.range(of: "\n  -").map { rest[..<$0.lowerBound] } ?? rest
            let port = try XCTUnwrap(entry.firstMatch(of: /\(default (\d+)/).flatMap { Int($0.1) }, String(entry))
            ports[flag] = port
        }
        return ports
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOfFile: Fixtures.root + "/" + path, encoding: .utf8)
    }

    func testTheContainerfileExposesEveryDefaultListener() throws {
        let ports = try defaultPorts()
        let expose = try XCTUnwrap(try read("Containerfile").split(separator: "\n").first { $0.hasPrefix("EXPOSE ") })
        XCTAssertEqual(Set(expose.split(separator: " ").dropFirst().compactMap { Int($0) }), Set(ports.values), String(expose))
    }

    func testTheContainersGuidesPortTableNamesEveryDefaultListener() throws {
        let row = try XCTUnwrap(try read("docs/guide/containers.md").split(separator: "\n").first { $0.hasPrefix("| ports |") })
        for (flag, port) in try defaultPorts() {
            XCTAssertTrue(row.contains("\(port) "), "\(flag) (\(port)) is missing from: \(row)")
        }
    }

    func testGettingStartedShowsTheListeningLineAsTheServerWritesIt() throws {
        let ports = try defaultPorts()
        let bound = BoundPorts(
            http2: try XCTUnwrap(ports["http2"]), gateway: ports["gateway"], feedback: ports["feedback"], control: ports["control"],
            channelManagement: ports["channel-management"], webPush: ports["web-push"]
        )
        let line = "mockapns listening " + bound.summary(host: "127.0.0.1")
        let page = try read("docs/guide/getting-started.md")
        XCTAssertTrue(page.contains(line + "\n"), "getting-started.md should show:\n\(line)")
    }
}
