import MockAPNsConnections
import Foundation
import MockAPNs
import MockAPNsCore
import XCTest

/// The embedding API as the README shows it: the example is a test of its own
/// (`ReadmeEmbeddingExample.swift`), and these tests keep it honest and check what it relies on.
final class ReadmeEmbeddingExampleTests: XCTestCase {
    /// The README's Swift block under "a server inside your tests" is the test file's code.
    func testTheReadmeShowsTheExampleThatRuns() throws {
        let readme = try String(contentsOfFile: Fixtures.root + "/README.md", encoding: .utf8)
        let example = try String(
            contentsOfFile: Fixtures.root + "/Tests/MockAPNsTests/Embedding/ReadmeEmbeddingExample.swift", encoding: .utf8)
        let code = try XCTUnwrap(Self.between("// README example begins\n", "// README example ends", in: example))
        let section = try XCTUnwrap(readme.range(of: "## Swift: a server inside your tests"), "README section missing")
        let block = try XCTUnwrap(Self.between("```swift\n", "```", in: String(readme[section.upperBound...])))
        XCTAssertEqual(block, code, "the README's embedding example and ReadmeEmbeddingExample.swift differ")
    }

    /// Two embedded servers with default configurations start side by side: every listener
    /// takes a free port.
    func testDefaultConfigurationsNeverCollide() async throws {
        var configuration = MockAPNsConfiguration()
        configuration.certificateDirectory = Fixtures.certificateDirectory
        let first = MockAPNsServer(configuration: configuration)
        let second = MockAPNsServer(configuration: configuration)
        let firstPorts = try await first.start()
        let secondPorts: BoundPorts
        do {
            secondPorts = try await second.start()
        } catch {
            try await first.shutdown()
            throw error
        }
        XCTAssertNotEqual(firstPorts.http2, secondPorts.http2)
        XCTAssertNotEqual(firstPorts.gateway, secondPorts.gateway)
        XCTAssertNotEqual(firstPorts.feedback, secondPorts.feedback)
        XCTAssertFalse([2195, 2196, 2197].contains(firstPorts.http2))
        try await first.shutdown()
        try await second.shutdown()
    }

    /// "Address already in use" names the listener, its address and the flag to change it.
    func testAPortInUseIsNamedWithItsListener() async throws {
        let (running, ports) = try await TestServer.start()
        let cases: [(String, (inout MockAPNsConfiguration) -> Void, String)] = [
            ("HTTP/2 provider API", { $0.http2Port = ports.http2 }, "--http2-port"),
            ("legacy gateway", { $0.legacy.gatewayPort = ports.gateway ?? 0 }, "--gateway-port"),
            ("feedback service", { $0.legacy.feedbackPort = ports.feedback ?? 0 }, "--feedback-port"),
        ]
        for (listener, adjust, flag) in cases {
            var configuration = MockAPNsConfiguration()
            configuration.certificateDirectory = Fixtures.certificateDirectory
            adjust(&configuration)
            let clashing = MockAPNsServer(configuration: configuration)
            do {
                try await clashing.start()
                XCTFail("\(listener): a second server bound a port in use")
            } catch let error as ListenerBindFailed {
                XCTAssertEqual(error.listener, listener)
                let port = listener == "HTTP/2 provider API" ? ports.http2 : listener == "legacy gateway" ? ports.gateway : ports.feedback
                XCTAssertEqual(error.port, port)
                XCTAssertTrue(error.description.contains("127.0.0.1:\(port ?? -1)"), error.description)
                XCTAssertTrue(error.description.contains("Address already in use"), error.description)
                XCTAssertTrue(error.description.contains(flag), error.description)
            }
            try await clashing.shutdown()
        }
        try await running.shutdown()
    }

    private static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }
}
