import MockAPNsTLS
import XCTest

final class CurlInteropTests: TLSTestCase {
    func testCurlOverHTTP11IsRefusedWithNoApplicationProtocol() async throws {
        let fixtures = try fixtures()
        let server = try await EchoServer.start(group: group, configuration: serverConfiguration(alpn: .require(["h2"])))
        let result = ExternalCommand.run(
            "/usr/bin/env",
            ["curl", "--silent", "--show-error", "--http1.1", "--cacert", fixtures.caCertificate,
             "--resolve", "localhost:\(server.port):127.0.0.1", "https://localhost:\(server.port)/"],
            timeout: 20
        )
        XCTAssertEqual(result.status, 35, result.output)  // CURLE_SSL_CONNECT_ERROR
        XCTAssertTrue(result.output.contains("no application protocol"), result.output)
        let seen = try await server.recorder.wait { !$0.failed.isEmpty }
        XCTAssertEqual(seen.failed.first?.reason, "client offered ALPN [http/1.1]; this listener requires one of [h2]")
        XCTAssertEqual(seen.failed.first?.clientHello?.serverName, "localhost")
        try await server.stop()
    }
}
