import Foundation
import MockAPNs
import MockAPNsTestSupport
import XCTest

/// `mockapns --version`, `mockapns health`, `serve --ephemeral-ports`, and `journal` reading a
/// live control API over its own HTTP client.
final class HealthAndPortsCommandTests: XCTestCase {
    private var executable: String { Fixtures.executable }

    /// The version is written once, in MockAPNsVersion.swift; the binary prints it (then the
    /// commit) and the release script reads it from there with the same expression.
    func testVersionIsTheOneTheReleaseIsNamedWith() throws {
        let printed = try ProcessRunner.run(executable, ["--version"])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        // The version first; the commit after it (CommandLineConventionTests checks its form).
        XCTAssertEqual(printed.stdout.split(separator: " ").first.map(String.init), MockAPNsVersion.current, printed.stdout)
        XCTAssertNotNil(MockAPNsVersion.current.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression), MockAPNsVersion.current)
        let script = try String(contentsOfFile: Fixtures.root + "/scripts/package.sh", encoding: .utf8)
        let expression = try XCTUnwrap(script.split(separator: "\n").first { $0.hasPrefix("version=$(sed -n ") })
        let read = try ProcessRunner.run("/bin/bash", ["-c", expression + " && printf %s \"$version\""], in: URL(fileURLWithPath: Fixtures.root))
        XCTAssertEqual(read.stdout, MockAPNsVersion.current, read.stderr)
    }

    func testHealthIsReadyWhileTheServerRunsAndNotOnceItStops() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        let control = "http://127.0.0.1:\(try XCTUnwrap(ports.control))"
        let ready = try ProcessRunner.run(executable, ["health", "--control", control])
        XCTAssertEqual(ready.status, 0, ready.stderr)
        XCTAssertEqual(ready.stdout, "ready: \(control)\n")
        try await server.shutdown()

        let gone = try ProcessRunner.run(executable, ["health", "--control", control])
        XCTAssertEqual(gone.status, 1)
        XCTAssertEqual(gone.stdout, "")
        XCTAssertEqual(gone.stderr.split(separator: "\n").count, 1, gone.stderr)
        XCTAssertTrue(gone.stderr.contains("not ready: cannot reach the control API at \(control): connection refused"), gone.stderr)
    }

    /// Something that is not a MockAPNs control API is not "ready": the HTTP/2 port speaks TLS.
    func testHealthOfSomethingElseSaysWhatItGot() async throws {
        let (server, ports) = try await TestServer.start()
        let other = try ProcessRunner.run(executable, ["health", "--control", "http://127.0.0.1:\(ports.http2)"])
        try await server.shutdown()
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.stderr.contains("not ready: "), other.stderr)

        let https = try ProcessRunner.run(executable, ["health", "--control", "https://127.0.0.1:2198"])
        XCTAssertNotEqual(https.status, 0)
        XCTAssertTrue(https.stderr.contains("the control API speaks plain HTTP"), https.stderr)
        XCTAssertTrue(https.stderr.contains("Usage: mockapns health"), https.stderr)
    }

    /// `health --wait` started before the server keeps asking until the server is up.
    func testHealthWaitsForAServerStartedAfterIt() async throws {
        let port = try Self.freePort()
        let executable = self.executable
        let waiting = Task.detached { try ProcessRunner.run(executable, ["health", "--wait", "30", "--control", "http://127.0.0.1:\(port)"], timeout: 40) }
        // The health process may ask before or after this start: either way it must end ready.
        let (server, _) = try await TestServer.start { $0.controlPort = port }
        let result = try await waiting.value
        try await server.shutdown()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "ready: http://127.0.0.1:\(port)\n")
    }

    /// One flag puts every listener on a free port; two such servers run side by side, and
    /// the ports file and the listening line say where.
    func testEphemeralPortsGivesEveryListenerAFreePort() throws {
        let world = try CommandWorld(self)
        var servers: [(ServeProcess, [String: Int])] = []
        defer { for (serving, _) in servers { _ = serving.stop() } }
        for index in 0..<2 {
            let portsFile = world.directory + "/ports-\(index).json"
            let serving = try world.serve(["--ephemeral-ports", "--cert-dir", Fixtures.certificateDirectory, "--ports-file", portsFile])
            let listening = try serving.line(startingWith: "mockapns listening ")
            let ports = try PortsFile.wait(portsFile, for: "control")
            XCTAssertEqual(Set(ports.keys), ["http2", "gateway", "feedback", "control", "channelManagement", "webPush"], "\(ports)")
            for (name, port) in ports {
                XCTAssertFalse([2195, 2196, 2197, 2198, 2199, 2200].contains(port), "\(name) on Apple's or the default port \(port)")
                XCTAssertTrue(listening.contains("\(name)=127.0.0.1:\(port)"), listening)
            }
            servers.append((serving, ports))
        }
        XCTAssertTrue(Set(servers[0].1.values).isDisjoint(with: servers[1].1.values), "\(servers.map(\.1))")
        let response = try CurlClient(port: try XCTUnwrap(servers[1].1["http2"])).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        for (serving, _) in servers { XCTAssertEqual(serving.stop(), 0, serving.stderr) }
    }

    /// A script that waits for the listening line may read the ports file at once: the file
    /// is written before the line, so a ports file that cannot be written means no line.
    func testThePortsFileIsWrittenBeforeTheListeningLine() throws {
        let world = try CommandWorld(self)
        let portsFile = world.directory + "/no-such-folder/ports.json"
        let serving = try world.serve(["--ephemeral-ports", "--cert-dir", Fixtures.certificateDirectory, "--ports-file", portsFile])
        defer { _ = serving.stop() }
        XCTAssertNotEqual(try serving.exit(), 0, serving.stderr)
        XCTAssertFalse(serving.stdout.contains("mockapns listening"), serving.stdout)
        XCTAssertTrue(serving.stderr.contains("cannot write the ports file \(portsFile) (--ports-file): "), serving.stderr)
    }

    func testEphemeralPortsWithAFixedPortIsRefused() throws {
        let result = try ProcessRunner.run(executable, ["serve", "--ephemeral-ports", "--http2-port", "2197", "--control-port", "0"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--ephemeral-ports gives every listener a free port; drop it or --http2-port, --control-port"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Usage: mockapns serve"), result.stderr)
    }

    /// `journal --control` reads a live server's events (over the CLI's own HTTP client).
    func testJournalReadsALiveServer() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        _ = try await server.waitForNotifications(count: 1, timeout: .seconds(5))
        let control = "http://127.0.0.1:\(try XCTUnwrap(ports.control))"
        let timeline = try ProcessRunner.run(executable, ["journal", "--control", control, "--type", "notification"])
        let json = try ProcessRunner.run(executable, ["journal", "--control", control + "/", "--type", "notification,connectionOpened", "--json"])
        try await server.shutdown()
        XCTAssertEqual(timeline.status, 0, timeline.stderr)
        let lines = timeline.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, timeline.stdout)
        XCTAssertTrue(lines.first?.contains("push http2 token=\(Fixtures.token) topic=com.example.app") == true, timeline.stdout)
        XCTAssertTrue(lines.first?.contains("=> 200 accepted") == true, timeline.stdout)
        XCTAssertEqual(json.status, 0, json.stderr)
        let types = try json.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["type"] as? String
        }
        XCTAssertEqual(types, ["connectionOpened", "notification"])
    }

    func testJournalNamesTheValidTypesForAnUnknownOne() throws {
        for list in ["nope", "notification,nope", "notification,"] {
            let result = try ProcessRunner.run(executable, ["journal", "--file", "/dev/null", "--type", list])
            XCTAssertEqual(result.status, 64, "\(list): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", list)
            XCTAssertTrue(result.stderr.contains("--type: no event type "), result.stderr)
            XCTAssertTrue(result.stderr.contains("the types are connectionOpened, connectionClosed, tlsEstablished"), result.stderr)
            XCTAssertTrue(result.stderr.contains("Usage: mockapns journal"), result.stderr)
        }
    }

    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EBADF) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
