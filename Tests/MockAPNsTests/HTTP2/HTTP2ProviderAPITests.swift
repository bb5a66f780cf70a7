import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import XCTest

/// The HTTP/2 provider API over real TLS on 127.0.0.1, driven by the real `curl --http2`.
final class HTTP2ProviderAPITests: XCTestCase {
    private static let uuidPattern = #"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$"#
    private static let lowerUUIDPattern = #"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"#

    private let validHeaders = [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]

    func testAcceptedPushAnswers200WithGeneratedUpperCaseIDAndUniqueIDInSandbox() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown() }
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: validHeaders)
        XCTAssertEqual(response.httpVersion, "HTTP/2")
        XCTAssertEqual(response.status, 200)
        let apnsID = try XCTUnwrap(response.header("apns-id"))
        XCTAssertNotNil(apnsID.range(of: Self.uuidPattern, options: .regularExpression), apnsID)
        let uniqueID = try XCTUnwrap(response.header("apns-unique-id"))
        XCTAssertNotNil(uniqueID.range(of: Self.lowerUUIDPattern, options: .regularExpression), uniqueID)
        XCTAssertNil(response.header("content-type"), "a 200 carries no body and no content-type")
        XCTAssertEqual(response.body, "")
        try await server.shutdown()
    }

    func testApnsIDIsEchoedByteForByte() async throws {
        let (server, ports) = try await TestServer.start()
        let sent = "e77a3d12-bc9f-f410-a127-43f212597a9c"
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: validHeaders + [("apns-id", sent)])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("apns-id"), sent)
        try await server.shutdown()
    }

    func testProductionSendsNoUniqueIDAndLowerCaseGenerationIsAnOption() async throws {
        let (server, ports) = try await TestServer.start {
            $0.environment = .production
            $0.generatedIDCase = .lower
        }
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: validHeaders)
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.header("apns-unique-id"))
        let apnsID = try XCTUnwrap(response.header("apns-id"))
        XCTAssertNotNil(apnsID.range(of: Self.lowerUUIDPattern, options: .regularExpression), apnsID)
        try await server.shutdown()
    }

    /// Every reason reachable without authentication, as Apple answers it: status, JSON
    /// content type, `apns-id`, and the exact body.
    func testEveryUnauthenticatedReasonHasApplesStatusAndBody() async throws {
        let (server, ports) = try await TestServer.start()
        let curl = CurlClient(port: ports.http2)
        let token = Fixtures.token
        let cases: [(name: String, method: String, path: String, headers: [(String, String)], body: String?, reason: Reason)] = [
            ("GET", "GET", "/3/device/\(token)", validHeaders, nil, .methodNotAllowed),
            ("bad path", "POST", "/3/devices/\(token)", validHeaders, "{}", .badPath),
            ("no token", "POST", "/3/device/", validHeaders, "{}", .missingDeviceToken),
            ("odd-length token", "POST", "/3/device/\(token)a", validHeaders, "{}", .badDeviceToken),
            ("non-hex token", "POST", "/3/device/\(String(repeating: "zz", count: 32))", validHeaders, "{}", .badDeviceToken),
            ("short token", "POST", "/3/device/\(String(repeating: "ab", count: 16 ))", validHeaders, "{}", .badDeviceToken),
            ("bad apns-id", "POST", "/3/device/\(token)", validHeaders + [("apns-id", "not-a-uuid")], "{}", .badMessageId),
            ("bad expiration", "POST", "/3/device/\(token)", validHeaders + [("apns-expiration", "tomorrow")], "{}", .badExpirationDate),
            ("bad priority", "POST", "/3/device/\(token)", validHeaders + [("apns-priority", "7")], "{}", .badPriority),
            ("bad push type", "POST", "/3/device/\(token)", [("apns-topic", "com.example.app"), ("apns-push-type", "banner")], "{}", .invalidPushType),
            ("voip topic with alert", "POST", "/3/device/\(token)", [("apns-topic", "com.example.app.voip"), ("apns-push-type", "alert")], "{}", .invalidPushType),
            ("long collapse id", "POST", "/3/device/\(token)", validHeaders + [("apns-collapse-id", String(repeating: "c", count: 65))], "{}", .badCollapseId),
            ("empty payload", "POST", "/3/device/\(token)", validHeaders, "", .payloadEmpty),
            ("payload over 4096", "POST", "/3/device/\(token)", validHeaders, largePayload(bytes: 4097), .payloadTooLarge),
        ]
        for item in cases {
            let response = try curl.send(method: item.method, path: item.path, headers: item.headers, body: item.body)
            XCTAssertEqual(response.status, item.reason.httpStatus, item.name)
            XCTAssertEqual(response.body, #"{"reason":"\#(item.reason.rawValue)"}"#, item.name)
            XCTAssertEqual(response.header("content-type"), "application/json", item.name)
            XCTAssertNotNil(response.header("apns-id"), item.name)
        }
        try await server.shutdown()
    }

    func testVoIPPayloadMayReach5120Bytes() async throws {
        let (server, ports) = try await TestServer.start()
        let curl = CurlClient(port: ports.http2)
        let voip = [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")]
        let accepted = try curl.send(path: "/3/device/\(Fixtures.token)", headers: voip, body: largePayload(bytes: 5120))
        XCTAssertEqual(accepted.status, 200)
        let refused = try curl.send(path: "/3/device/\(Fixtures.token)", headers: voip, body: largePayload(bytes: 5121))
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(refused.body, #"{"reason":"PayloadTooLarge"}"#)
        try await server.shutdown()
    }

    func testUnregisteredTokenAnswers410WithTimestampInMilliseconds() async throws {
        let (server, ports) = try await TestServer.start()
        let since: Int64 = 1_700_000_000_123
        server.registry.markUnregistered(Fixtures.token, since: since)
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: validHeaders)
        XCTAssertEqual(response.status, 410)
        XCTAssertEqual(response.body, #"{"reason":"Unregistered","timestamp":\#(since)}"#)
        try await server.shutdown()
    }

    func testHTTP1OnlyClientIsRefusedWithNoApplicationProtocolAlert() async throws {
        let (server, ports) = try await TestServer.start()
        let result = try ProcessRunner.run("openssl", [
            "s_client", "-connect", "127.0.0.1:\(ports.http2)", "-alpn", "http/1.1",
            "-CAfile", Fixtures.caPath, "-servername", "localhost",
        ], input: Data())
        XCTAssertTrue(result.stderr.contains("no application protocol") || result.stdout.contains("no application protocol"),
                      "expected the no_application_protocol alert; got:\n\(result.stderr)")
        // The server keeps serving HTTP/2 clients.
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: validHeaders)
        XCTAssertEqual(response.status, 200)
        try await server.shutdown()
    }

    private func largePayload(bytes: Int) -> String {
        let prefix = #"{"aps":{"alert":""#
        let suffix = #""}}"#
        return prefix + String(repeating: "x", count: bytes - prefix.utf8.count - suffix.utf8.count) + suffix
    }
}
