import MockAPNsLogging
import MockAPNsObservation
import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Apple's two authentication modes over real TLS, driven by curl, nghttp and openssl.
final class AuthenticationTests: XCTestCase {
    private let token = Fixtures.token
    private let appTopic = [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]

    private func jwt(_ keyID: String, team: String = "TEAM00000A", issuedAt: Int64 = Int64(Date().timeIntervalSince1970)) throws -> String {
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_\(keyID).p8", encoding: .utf8)
        return try ProviderTokenSigner(keyID: keyID, teamID: team, privateKeyPEM: pem).token(issuedAt: issuedAt)
    }

    // MARK: Provider tokens

    func testProviderTokenReasonsOverRealTLS() async throws {
        let (server, ports) = try await TestServer.start()
        let curl = CurlClient(port: ports.http2, certificate: nil)
        let now = Int64(Date().timeIntervalSince1970)
        let cases: [(name: String, headers: [(String, String)], expected: Reason?)] = [
            ("valid team key", appTopic + [("authorization", "bearer \(try jwt("SANDBOX001"))")], nil),
            ("valid both-environment key", appTopic + [("authorization", "bearer \(try jwt("BOTHENV001"))")], nil),
            ("no authorization", appTopic, .missingProviderToken),
            ("garbage token", appTopic + [("authorization", "bearer not.a.jwt")], .invalidProviderToken),
            ("wrong team for the key", appTopic + [("authorization", "bearer \(try jwt("SANDBOX001", team: "TEAM00000B"))")], .invalidProviderToken),
            ("iat over an hour old", appTopic + [("authorization", "bearer \(try jwt("SANDBOX001", issuedAt: now - 3700))")], .expiredProviderToken),
            ("production key on a sandbox server", appTopic + [("authorization", "bearer \(try jwt("PRODUCT001"))")], .badEnvironmentKeyIdInToken),
            ("topic key for another topic", [("apns-topic", "com.example.other"), ("authorization", "bearer \(try jwt("TOPICSBX01"))")], .topicDisallowed),
            ("token auth without a topic", [("authorization", "bearer \(try jwt("SANDBOX001"))")], .missingTopic),
        ]
        for item in cases {
            let response = try curl.send(path: "/3/device/\(token)", headers: item.headers)
            if let reason = item.expected {
                XCTAssertEqual(response.status, reason.httpStatus, item.name)
                XCTAssertEqual(response.body, #"{"reason":"\#(reason.rawValue)"}"#, item.name)
            } else {
                XCTAssertEqual(response.status, 200, "\(item.name): \(response.body)")
            }
        }
        try await server.shutdown()
    }

    /// Every cause of `InvalidProviderToken` answers the same to the client, as Apple does; the
    /// record's `authentication.detail` and the access log line say which it was.
    func testEachInvalidProviderTokenCauseIsRecordedAndLogged() async throws {
        let logPath = Fixtures.temporaryPath("access.log")
        let descriptor = open(logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        addTeardownBlock { close(descriptor); unlink(logPath) }
        let (server, ports) = try await TestServer.start {
            $0.accessLog = MockAPNsConfiguration.AccessLogSettings(format: .text, output: LogOutput(descriptor: descriptor))
        }
        let otherPEM = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_PRODUCT001.p8", encoding: .utf8)
        let now = Int64(Date().timeIntervalSince1970)
        let cases: [(name: String, jwt: String, detail: [String])] = [
            ("unknown key id", try ProviderTokenSigner(keyID: "NOSUCHKEY1", teamID: "TEAM00000A", privateKeyPEM: otherPEM).token(issuedAt: now),
             [#"no key registered with kid "NOSUCHKEY1""#, "SANDBOX001"]),
            ("signed with another key", try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: otherPEM).token(issuedAt: now),
             ["signature does not verify with key SANDBOX001"]),
            ("wrong team", try jwt("SANDBOX001", team: "TEAM00000B"), [#"iss "TEAM00000B" is not key SANDBOX001's team TEAM00000A"#]),
            ("iat in the future", try jwt("SANDBOX001", issuedAt: now + 600), ["in the future; tolerance 60 s"]),
        ]
        let curl = CurlClient(port: ports.http2, certificate: nil)
        for item in cases {
            let device = String(format: "%064x", item.name.hashValue.magnitude)
            let response = try curl.send(path: "/3/device/\(device)", headers: appTopic + [("authorization", "bearer \(item.jwt)")])
            XCTAssertEqual(response.body, #"{"reason":"InvalidProviderToken"}"#, item.name)
            let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(deviceToken: device), timeout: .seconds(5))
            let record = try XCTUnwrap(records.first, item.name)
            XCTAssertEqual(record.authentication.refusal, .invalidProviderToken, item.name)
            let detail = try XCTUnwrap(record.authentication.detail, item.name)
            for needle in item.detail { XCTAssertTrue(detail.contains(needle), "\(item.name): \(detail)") }
            XCTAssertFalse(detail.contains(String(item.jwt.split(separator: ".").last ?? "")), "\(item.name): the signature is never recorded")
        }
        _ = await server.metricsText()  // the access log has read every record by now
        try await server.shutdown()
        let pushes = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").filter { $0.contains(" info push c") }
        XCTAssertEqual(pushes.count, cases.count, pushes.joined(separator: "\n"))
        for (line, item) in zip(pushes, cases) {
            XCTAssertTrue(line.contains("403 InvalidProviderToken "), String(line))
            for needle in item.detail { XCTAssertTrue(line.contains(needle), "\(item.name): \(line)") }
        }
    }

    /// A client certificate that does not chain to the trusted roots: the record and the log
    /// name the CA file the server trusts, so a certificate from another development set is
    /// told apart from a broken one.
    func testAnUntrustedCertificateRecordNamesTheTrustedRoots() async throws {
        let (server, ports) = try await TestServer.start()
        let response = try CurlClient(port: ports.http2, certificate: "untrusted").send(path: "/3/device/\(token)", headers: appTopic)
        XCTAssertEqual(response.body, #"{"reason":"BadCertificate"}"#)
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(deviceToken: token), timeout: .seconds(5))
        let record = try XCTUnwrap(records.first)
        let detail = try XCTUnwrap(record.authentication.detail)
        XCTAssertTrue(detail.contains("does not chain to the trusted roots (/"), detail)
        XCTAssertTrue(detail.contains("certs-dev/ca.pem)"), detail)
        try await server.shutdown()
    }

    /// curl without `--cacert` refuses the server's certificate with `unknown_ca`; the journal
    /// and the log say which CA file to give it.
    func testAClientThatDistrustsTheServerIsToldWhichCAToPass() async throws {
        let (server, ports) = try await TestServer.start()
        let result = try ProcessRunner.run("curl", ["--http2", "-sS", "-o", "/dev/null", "https://127.0.0.1:\(ports.http2)/3/device/\(token)"])
        XCTAssertNotEqual(result.status, 0, "curl must refuse a server signed by an unknown CA")
        let failures = await server.journal.waitForEvents(count: 1, timeout: .seconds(5)) { event in
            if case .tlsFailed = event.kind { return true }
            return false
        }
        guard case .tlsFailed(let failure)? = failures.first?.kind else { return XCTFail("no tlsFailed event") }
        XCTAssertEqual(failure.alertReceived, "unknown_ca")
        XCTAssertTrue(failure.reason.contains("alert unknown_ca (48): it does not trust this server's certificate; give the client the CA that signed it, /"), failure.reason)
        XCTAssertTrue(failure.reason.contains("certs-dev/ca.pem (curl --cacert /"), failure.reason)
        try await server.shutdown()
    }

    /// A client that trusts the CA but asked (by SNI) for a name the certificate does not
    /// hold refuses it with bad_certificate: the journal and the log name the certificate's
    /// names and the one asked for, and do not send its developer after a CA file.
    func testAClientThatAskedForAnotherNameIsToldTheCertificatesNamesNotTheCA() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger())
        let result = try ProcessRunner.run("openssl", [
            "s_client", "-connect", "127.0.0.1:\(ports.http2)", "-servername", "push.example.com",
            "-verify_hostname", "push.example.com", "-verify_return_error", "-CAfile", Fixtures.caPath, "-alpn", "h2",
        ])
        XCTAssertNotEqual(result.status, 0, "openssl must refuse a certificate for other names: \(result.stdout)")
        let failures = await server.journal.waitForEvents(count: 1, timeout: .seconds(5)) { event in
            if case .tlsFailed = event.kind { return true }
            return false
        }
        guard case .tlsFailed(let failure)? = failures.first?.kind else { return XCTFail("no tlsFailed event") }
        try await server.shutdown()
        XCTAssertEqual(failure.alertReceived, "bad_certificate")
        XCTAssertEqual(failure.serverName, "push.example.com")
        let refusal = try XCTUnwrap(logs.messages.first { $0.contains("HTTP/2: TLS handshake refused") }, logs.messages.joined(separator: "\n"))
        for text in [failure.reason, refusal] {
            XCTAssertTrue(text.contains("alert bad_certificate (42): it asked for push.example.com (SNI), a name this server's certificate does not hold"), text)
            XCTAssertTrue(text.contains("the certificate holds DNS names [localhost, api.push.apple.com, api.sandbox.push.apple.com, "), text)
            XCTAssertTrue(text.contains("] and IP addresses [127.0.0.1, ::1]: let the client connect by one of those"), text)
            XCTAssertFalse(text.contains("give the client the CA"), text)
            XCTAssertFalse(text.contains("does not trust"), text)
        }
    }

    func testTokenSignedByOpenSSLWithDERSignatureIsAccepted() async throws {
        let (server, ports) = try await TestServer.start()
        let script = """
        set -e
        b64() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
        header=$(printf '{"alg":"ES256","kid":"SANDBOX001"}' | b64)
        claims=$(printf '{"iss":"TEAM00000A","iat":%d}' "$(date +%s)" | b64)
        signature=$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$1/AuthKey_SANDBOX001.p8" | b64)
        printf '%s.%s.%s' "$header" "$claims" "$signature"
        """
        let made = try ProcessRunner.run("bash", ["-c", script, "mint", Fixtures.certificateDirectory])
        XCTAssertEqual(made.status, 0, made.stderr)
        let response = try CurlClient(port: ports.http2, certificate: nil).send(
            path: "/3/device/\(token)", headers: appTopic + [("authorization", "bearer \(made.stdout)")])
        XCTAssertEqual(response.status, 200, response.body)
        try await server.shutdown()
    }

    func testNewTokenWithinTwentyMinutesOnOneConnectionIs429() async throws {
        let (server, ports) = try await TestServer.start()
        let now = Int64(Date().timeIntervalSince1970)
        let first = try jwt("SANDBOX001", issuedAt: now)
        let second = try jwt("SANDBOX001", issuedAt: now - 10)
        // `--next` keeps the same HTTP/2 connection for the second request.
        func request(_ jwt: String) -> [String] {
            ["--http2", "-sS", "--cacert", Fixtures.caPath, "-D", "-", "-o", "/dev/null",
             "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app", "-d", #"{"aps":{}}"#,
             "-w", "connects=%{num_connects}\n", "https://127.0.0.1:\(ports.http2)/3/device/\(token)"]
        }
        let result = try ProcessRunner.run("curl", request(first) + ["--next"] + request(second))
        let statuses = result.stdout.split(separator: "\n").filter { $0.hasPrefix("HTTP/2 ") }.map { String($0.dropFirst(7).prefix(3)) }
        XCTAssertEqual(statuses, ["200", "429"], result.stdout)
        XCTAssertTrue(result.stdout.contains("connects=0"), "the second request must reuse the connection:\n\(result.stdout)")
        try await server.shutdown()
    }

    func testTokenConnectionStreamLimitRisesAfterFirstValidToken() async throws {
        let (server, ports) = try await TestServer.start { $0.http2.maxConcurrentStreams = 1000 }
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-nghttp-\(UUID().uuidString).json")
        try Data(#"{"aps":{}}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let result = try ProcessRunner.run("nghttp", [
            "-v", "-H", "authorization: bearer \(try jwt("SANDBOX001"))", "-H", "apns-topic: com.example.app",
            "-d", body.path, "https://127.0.0.1:\(ports.http2)/3/device/\(token)",
        ])
        // The MAX_CONCURRENT_STREAMS values the client received, in order, and where the
        // response arrived among them.
        var events: [String] = []
        var inReceivedSettings = false
        for line in result.stdout.split(separator: "\n") {
            if line.contains("recv SETTINGS frame") { inReceivedSettings = true; continue }
            if line.contains("] send ") || line.contains("] recv ") { inReceivedSettings = false }
            if inReceivedSettings, let range = line.range(of: "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):") {
                events.append("streams=" + line[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "]")))
            }
            if line.contains(":status: ") { events.append("status=" + (line.components(separatedBy: ":status: ").last ?? "")) }
        }
        XCTAssertEqual(events, ["streams=1", "streams=1000", "status=200"], result.stdout)
        try await server.shutdown()
    }

    // MARK: Client certificates

    func testClientCertificateOutcomes() async throws {
        let (server, ports) = try await TestServer.start()
        let cases: [(name: String, certificate: String, headers: [(String, String)], expected: Reason?)] = [
            ("sandbox certificate, default topic from UID", "sandbox", [], nil),
            ("sandbox certificate, its topic", "sandbox", appTopic, nil),
            ("universal certificate, voip topic", "universal", [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")], nil),
            ("universal certificate ignores a bogus authorization header", "universal", appTopic + [("authorization", "bearer junk")], nil),
            ("universal certificate lists several topics: topic required", "universal", [], .missingTopic),
            ("topic the certificate does not cover", "universal", [("apns-topic", "com.example.other")], .topicDisallowed),
            ("location pushes need token authentication", "universal", [("apns-topic", "com.example.app.location-query"), ("apns-push-type", "location")], .topicDisallowed),
            ("production certificate on a sandbox server", "production", appTopic, .badCertificateEnvironment),
            ("certificate from an untrusted CA", "untrusted", appTopic, .badCertificate),
        ]
        for item in cases {
            let response = try CurlClient(port: ports.http2, certificate: item.certificate).send(path: "/3/device/\(token)", headers: item.headers)
            if let reason = item.expected {
                XCTAssertEqual(response.status, reason.httpStatus, item.name)
                XCTAssertEqual(response.body, #"{"reason":"\#(reason.rawValue)"}"#, item.name)
            } else {
                XCTAssertEqual(response.status, 200, "\(item.name): \(response.body)")
            }
        }
        try await server.shutdown()
    }

    func testProductionServerAcceptsProductionCertificateWithoutUniqueID() async throws {
        let (server, ports) = try await TestServer.start { $0.environment = .production }
        let accepted = try CurlClient(port: ports.http2, certificate: "production").send(path: "/3/device/\(token)", headers: appTopic)
        XCTAssertEqual(accepted.status, 200)
        XCTAssertNil(accepted.header("apns-unique-id"))
        let refused = try CurlClient(port: ports.http2, certificate: "sandbox").send(path: "/3/device/\(token)", headers: appTopic)
        XCTAssertEqual(refused.body, #"{"reason":"BadCertificateEnvironment"}"#)
        try await server.shutdown()
    }

    func testExpiredClientCertificateFailsTheHandshakeWithCertificateExpired() async throws {
        let (server, ports) = try await TestServer.start()
        // TLS 1.2, so the alert arrives inside the handshake (over TLS 1.3 the client has
        // finished its side first; the TLS module's tests cover that with their own client).
        // openssl s_client names the alert it received.
        let base = Fixtures.certificateDirectory + "/client-expired"
        let result = try ProcessRunner.run("openssl", [
            "s_client", "-connect", "127.0.0.1:\(ports.http2)", "-tls1_2", "-alpn", "h2",
            "-CAfile", Fixtures.caPath, "-cert", base + ".pem", "-key", base + "-key.pem",
        ], input: Data())
        let output = result.stdout + result.stderr
        XCTAssertTrue(output.contains("alert certificate expired") && output.contains("alert number 45"), output)
        // The server keeps serving valid clients.
        let response = try CurlClient(port: ports.http2).send(path: "/3/device/\(token)", headers: appTopic)
        XCTAssertEqual(response.status, 200)
        try await server.shutdown()
    }

    func testNoAuthOptionAcceptsBareRequests() async throws {
        let (server, ports) = try await TestServer.start { $0.requiresAuthentication = false }
        let response = try CurlClient(port: ports.http2, certificate: nil).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(response.status, 200)
        try await server.shutdown()
    }

    func testPinnedClockDecidesTokenExpiry() async throws {
        let start: Int64 = 1_800_000_000
        let (server, ports) = try await TestServer.start { $0.clockStart = start * 1000 }
        let curl = CurlClient(port: ports.http2, certificate: nil)
        let issued = try jwt("SANDBOX001", issuedAt: start)
        XCTAssertEqual(try curl.send(path: "/3/device/\(token)", headers: appTopic + [("authorization", "bearer \(issued)")]).status, 200)
        server.clock.advance(milliseconds: 3_600_000)
        let expired = try curl.send(path: "/3/device/\(token)", headers: appTopic + [("authorization", "bearer \(issued)")])
        XCTAssertEqual(expired.body, #"{"reason":"ExpiredProviderToken"}"#)
        try await server.shutdown()
    }
}
