import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import MockAPNsTestSupport
import XCTest

/// An embedded server with no credentials configured finds or generates a development set,
/// says where it is, and logs nothing unless given a logger.
final class EmbeddedCredentialsTests: XCTestCase {
    /// Runs `body` in an empty working folder (no ./certs-dev) with XDG_DATA_HOME and HOME set
    /// as given, restoring the process's folder and variables after: the server reads both,
    /// as a package's tests would have them. (`swift test` runs a class's tests one at a time.)
    private func inEmptyFolder(
        xdgDataHome: String?, home: String?, _ body: (String) async throws -> Void
    ) async throws {
        let root = Fixtures.temporaryPath("embedded")
        let folder = root + "/package"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let previousFolder = FileManager.default.currentDirectoryPath
        let previous = ["XDG_DATA_HOME": getenv("XDG_DATA_HOME").map { String(cString: $0) }, "HOME": getenv("HOME").map { String(cString: $0) }]
        func set(_ name: String, _ value: String?) {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        set("XDG_DATA_HOME", xdgDataHome.map { root + "/" + $0 })
        set("HOME", home.map { root + "/" + $0 })
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder))
        defer {
            _ = FileManager.default.changeCurrentDirectoryPath(previousFolder)
            for (name, value) in previous { set(name, value) }
            try? FileManager.default.removeItem(atPath: root)
        }
        try await body(root)
    }

    private func push(_ ports: BoundPorts, _ credentials: DevelopmentCredentials) throws -> String {
        try ProcessRunner.run("curl", [
            "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", credentials.caCertificatePath,
            "--cert", credentials.clientCertificatePath(for: .sandbox), "--key", credentials.clientKeyPath(for: .sandbox),
            "-H", "apns-topic: com.example.app", "-d", "{}", "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
        ]).stdout
    }

    func testWithoutCredentialsItGeneratesThemIntoThePerUserFolderOnce() async throws {
        try await inEmptyFolder(xdgDataHome: "data", home: "home") { root in
            let first = MockAPNsServer(configuration: MockAPNsConfiguration())
            XCTAssertEqual(first.developmentCredentials.directory, root + "/data/mockapns")
            let ports = try await first.start()
            let credentials = first.developmentCredentials
            XCTAssertTrue(credentials.generated)
            XCTAssertEqual(first.caCertificatePath, credentials.caCertificatePath)
            XCTAssertEqual(credentials.caCertificatePath, root + "/data/mockapns/ca.pem")
            XCTAssertEqual(try push(ports, credentials), "200")

            // A provider token signed with a key of the set is accepted too.
            let keyPEM = try String(contentsOfFile: credentials.providerKeyDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
            let jwt = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: keyPEM)
                .token(issuedAt: Int64(Date().timeIntervalSince1970))
            let withToken = try ProcessRunner.run("curl", [
                "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", credentials.caCertificatePath,
                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app", "-d", "{}",
                "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
            ])
            XCTAssertEqual(withToken.stdout, "200", withToken.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath), [],
                           "nothing is written into the package's folder")
            try await first.shutdown()

            // The next server (another test, another run) reuses the set.
            let second = MockAPNsServer(configuration: MockAPNsConfiguration())
            let secondPorts = try await second.start()
            XCTAssertFalse(second.developmentCredentials.generated)
            XCTAssertEqual(second.developmentCredentials.directory, credentials.directory)
            XCTAssertEqual(try push(secondPorts, second.developmentCredentials), "200")
            try await second.shutdown()
        }
    }

    func testWithoutHomeTheSetGoesIntoATemporaryFolder() async throws {
        try await inEmptyFolder(xdgDataHome: nil, home: nil) { _ in
            let server = MockAPNsServer(configuration: MockAPNsConfiguration())
            let ports = try await server.start()
            let credentials = server.developmentCredentials
            defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
            XCTAssertTrue(credentials.generated)
            XCTAssertTrue(credentials.directory.hasPrefix(FileManager.default.temporaryDirectory.path), credentials.directory)
            XCTAssertEqual(try push(ports, credentials), "200")
            try await server.shutdown()
        }
    }

    /// Servers starting at once into the same empty folder end up with one set between them.
    func testServersStartingTogetherShareOneSet() async throws {
        try await inEmptyFolder(xdgDataHome: "data", home: nil) { _ in
            let servers = (0..<4).map { _ in MockAPNsServer(configuration: MockAPNsConfiguration()) }
            let ports = try await withThrowingTaskGroup(of: BoundPorts.self) { group in
                for server in servers { group.addTask { try await server.start() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(servers.filter { $0.developmentCredentials.generated }.count, 1, "exactly one generated the set")
            for (server, port) in zip(servers, ports) {
                XCTAssertEqual(try push(port, server.developmentCredentials), "200")
            }
            for server in servers { try await server.shutdown() }
        }
    }

    /// A configured folder is used as it is: nothing is generated into it.
    func testAConfiguredFolderIsNeverFilled() async throws {
        let folder = Fixtures.temporaryPath("configured")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = MockAPNsConfiguration()
        configuration.certificateDirectory = folder
        let server = MockAPNsServer(configuration: configuration)
        do {
            try await server.start()
            XCTFail("a server without its TLS files started")
        } catch {}
        try await server.shutdown()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
        XCTAssertFalse(server.developmentCredentials.generated)
    }

    /// An embedded server writes nothing to the host's output by default (the benchmark's
    /// embedded start-up program prints only its own result line), and logs to a logger it is given.
    func testItIsQuietUnlessGivenALogger() async throws {
        let program = URL(fileURLWithPath: Fixtures.executable).deletingLastPathComponent().appendingPathComponent("EmbeddedStartup").path
        let run = try ProcessRunner.run(program, [Fixtures.certificateDirectory, "2"], timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        // SwiftNIO prints one diagnostic of its own, outside any logger, when a task is scheduled
        // on an event loop already shut down (a shutdown race, not a log line of the server's).
        let printed = run.stderr.split(separator: "\n").filter { !$0.hasPrefix("ERROR: Cannot schedule tasks on an EventLoop") }
        XCTAssertEqual(printed, [], run.stderr)
        XCTAssertEqual(run.stdout.split(separator: "\n").count, 1, run.stdout)
        XCTAssertTrue(run.stdout.hasPrefix("embedded start: "), run.stdout)

        let lines = LogLines()
        let logger = Logger(label: "host") { _ in lines }
        let server = MockAPNsServer(configuration: TestServer.configuration(), logger: logger)
        let ports = try await server.start()
        try await server.shutdown()
        XCTAssertTrue(lines.messages.contains { $0.hasPrefix("mockapns listening") && $0.contains("http2=127.0.0.1:\(ports.http2)") }, "\(lines.messages)")
        XCTAssertTrue(lines.messages.contains { $0.hasPrefix("provider keys loaded") }, "\(lines.messages)")
    }
}

/// A log handler that keeps the messages it is given.
private final class LogLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] { lock.lock(); defer { lock.unlock() }; return kept }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.lock()
        defer { lock.unlock() }
        let ports = event.metadata?["ports"].map { " \($0)" } ?? ""
        kept.append("\(event.message)\(ports)")
    }
}
