import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import MockAPNsDevelopmentPKI
import MockAPNsJournal
import MockAPNsTLS
import MockAPNsUpstream
import MockAPNsWire
import NIOCore
import NIOPosix
import Synchronization
import XCTest

/// The upstream client (pooled HTTP/2 over the project's OpenSSL handler and nghttp2) against
/// a real embedded MockAPNs as its upstream, over real TLS on 127.0.0.1: what it relays, how
/// it spreads requests, and how each way of failing is named.
final class UpstreamClientTests: XCTestCase {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let logs = LogRecorder()
    private static let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)

    override func tearDown() async throws {
        try await group.shutdownGracefully()
    }

    // MARK: Helpers

    private func startUpstream(
        scenario: String? = nil, _ adjust: @escaping (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> (MockAPNsServer, Int) {
        let (server, ports) = try await TestServer.start {
            $0.broadcast.managePort = 0
            adjust(&$0)
        }
        addTeardownBlock { try await server.shutdown() }
        if let scenario { try server.replaceScenario(jsonText: scenario) }
        return (server, ports.http2)
    }

    /// A client of `127.0.0.1:port` trusting `trustRoots` (the committed CA by default) and
    /// presenting the universal client certificate unless `certificate` is false.
    private func makeClient(
        port: Int, trustRoots: [PEMSource] = [.file(Fixtures.caPath)], certificate: Bool = true, connections: Int = 2,
        connectTimeout: TimeAmount = .seconds(5), requestTimeout: TimeAmount = .seconds(10)
    ) throws -> UpstreamClient {
        let client = try UpstreamClient(
            endpoint: UpstreamEndpoint(host: "127.0.0.1", port: port),
            certificateChain: certificate ? [.file(Fixtures.certificateDirectory + "/client-universal.pem")] : [],
            privateKey: certificate ? .file(Fixtures.certificateDirectory + "/client-universal-key.pem") : nil,
            trustRoots: trustRoots, group: group, connections: connections,
            connectTimeout: connectTimeout, requestTimeout: requestTimeout,
            logger: Logger(label: "upstream-client-test") { _ in self.logs }
        )
        addTeardownBlock { await client.shutdown() }
        return client
    }

    private func push(
        _ client: UpstreamClient, token: String = Fixtures.token, headers extra: [HTTPHeader] = []
    ) -> EventLoopFuture<UpstreamResponse> {
        client.send(
            method: "POST", path: "/3/device/\(token)",
            headers: [HTTPHeader(name: "apns-topic", value: "com.example.app"), HTTPHeader(name: "apns-push-type", value: "alert")] + extra,
            body: Self.payload
        )
    }

    /// The failure `future` ends with; fails the test when it succeeds or fails otherwise.
    private func failure(
        of future: EventLoopFuture<UpstreamResponse>, file: StaticString = #filePath, line: UInt = #line
    ) async throws -> UpstreamFailure {
        do {
            let response = try await future.get()
            XCTFail("expected a failure, got \(response.status)", file: file, line: line)
        } catch let failure as UpstreamFailure {
            return failure
        } catch {
            XCTFail("expected an UpstreamFailure, got \(type(of: error)): \(error)", file: file, line: line)
        }
        throw XCTSkip("no UpstreamFailure")
    }

    private func header(_ response: UpstreamResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }

    private func connectionsOpened(_ server: MockAPNsServer) -> Int {
        server.journal.events(matching: JournalEventFilter(kinds: ["connectionOpened"], transport: .http2)).count
    }

    /// A TLS listener on 127.0.0.1 with the committed server certificate and `alpn`, each
    /// connection's pipeline finished by `configure` after the TLS handler. Returns its port.
    private func startTLSListener(
        alpn: ALPNPolicy, _ configure: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> Int {
        let context = try OpenSSLContext(configuration: TLSConfiguration(
            certificateChain: [.file(Fixtures.certificateDirectory + "/server.pem")],
            privateKey: .file(Fixtures.certificateDirectory + "/server-key.pem"), alpn: alpn
        ))
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context))
                    try configure(channel)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        addTeardownBlock { try? await listener.close() }
        return try XCTUnwrap(listener.localAddress?.port)
    }

    /// A 64-hex-digit device token ending in `index`'s digits.
    private static func token(_ index: Int) -> String {
        let digits = String(index, radix: 16)
        return String(repeating: "b", count: 64 - digits.count) + digits
    }

    // MARK: Relayed answers

    func testAValidPushIsAnswered200WithTheUpstreamsOwnIDs() async throws {
        let (upstream, port) = try await startUpstream()
        let client = try makeClient(port: port)

        let response = try await push(client).get()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, [])
        XCTAssertFalse(response.headers.contains { $0.name.hasPrefix(":") }, "\(response.headers)")
        let apnsID = try XCTUnwrap(header(response, "apns-id"))
        let uniqueID = try XCTUnwrap(header(response, "apns-unique-id"), "a sandbox upstream sends apns-unique-id")
        XCTAssertGreaterThan(response.latency, .zero)
        XCTAssertLessThan(response.latency, .seconds(10))
        XCTAssertEqual(Double(response.latencyMicroseconds), response.latency / .microseconds(1), accuracy: 1)

        // The ids are the upstream's own, and it saw the request as sent, from the certificate.
        let record = try XCTUnwrap(upstream.journal.notifications().last)
        XCTAssertEqual(record.responseAPNsID, apnsID)
        XCTAssertEqual(record.deviceToken, Fixtures.token)
        XCTAssertEqual(record.topic, "com.example.app")
        XCTAssertEqual(record.payloadText, #"{"aps":{"alert":"hello"}}"#)
        XCTAssertEqual(record.authentication.kind, "certificate")
        let recorded = upstream.journal.events(matching: JournalEventFilter(kinds: ["notification"])).map(\.json)
        XCTAssertTrue(recorded.contains { $0.contains(uniqueID) }, "\(recorded)")
    }

    func testAProductionUpstreamSendsNoUniqueID() async throws {
        let (_, port) = try await startUpstream { $0.environment = .production }
        let response = try await push(try makeClient(port: port)).get()
        XCTAssertEqual(response.status, 200)
        XCTAssertNotNil(header(response, "apns-id"))
        XCTAssertNil(header(response, "apns-unique-id"))
    }

    func testAProviderTokenIsForwardedAndSeveralRequestsFitTheFirstStreamLimit() async throws {
        let (upstream, port) = try await startUpstream()
        // A connection without a client certificate starts at MAX_CONCURRENT_STREAMS 1, as
        // Apple's do: the client must not open more before the server raises it.
        let client = try makeClient(port: port, certificate: false, connections: 1)
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        let token = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: Int64(Date().timeIntervalSince1970))
        let authorization = HTTPHeader(name: "authorization", value: "bearer \(token)")
        let futures = (0..<5).map { push(client, token: Self.token($0), headers: [authorization]) }
        for future in futures {
            let response = try await future.get()
            XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        }
        let records = upstream.journal.notifications()
        XCTAssertEqual(records.count, 5)
        XCTAssertTrue(records.allSatisfy { $0.authentication.kind == "providerToken" && $0.authentication.keyID == "SANDBOX001" })
        XCTAssertEqual(connectionsOpened(upstream), 1)
    }

    func testARefusedPushGetsTheUpstreamsStatusAndBodyByteForByte() async throws {
        let (upstream, port) = try await startUpstream()
        let client = try makeClient(port: port)

        let response = try await push(client, token: "1234").get()
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.body, Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        XCTAssertNotNil(header(response, "apns-id"))
        // The same request sent straight to the upstream gets the same bytes and content type.
        let direct = try CurlClient(port: port).send(
            path: "/3/device/1234", headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]
        )
        XCTAssertEqual(direct.status, 400)
        XCTAssertEqual(response.body, Array(direct.body.utf8))
        XCTAssertEqual(header(response, "content-type"), direct.header("content-type"))

        let topic = try await client.send(
            method: "POST", path: "/3/device/\(Fixtures.token)",
            headers: [HTTPHeader(name: "apns-topic", value: "com.example.unknown"), HTTPHeader(name: "apns-push-type", value: "alert")],
            body: Self.payload
        ).get()
        XCTAssertEqual(topic.status, 400)
        XCTAssertEqual(String(decoding: topic.body, as: UTF8.self), #"{"reason":"TopicDisallowed"}"#)
        XCTAssertEqual(upstream.journal.notifications().map(\.status), [400, 400, 400])
    }

    func testFiftyConcurrentRequestsShareAPoolOfTwoConnections() async throws {
        let (upstream, port) = try await startUpstream()
        let client = try makeClient(port: port, connections: 2)

        let futures = (0..<50).map { push(client, token: Self.token($0)) }
        var statuses: [Int] = []
        for future in futures { statuses.append(try await future.get().status) }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 50))

        XCTAssertEqual(connectionsOpened(upstream), 2)
        let records = upstream.journal.notifications()
        XCTAssertEqual(records.count, 50)
        XCTAssertEqual(Set(records.map(\.deviceToken)).count, 50)
        // Round robin: both connections carried requests, about half each.
        let perConnection = Dictionary(grouping: records, by: \.connectionID).mapValues(\.count)
        XCTAssertEqual(perConnection.count, 2, "\(perConnection)")
        XCTAssertTrue(perConnection.values.allSatisfy { $0 >= 20 }, "\(perConnection)")
    }

    /// Requests with an affinity (a provider connection) keep to a connection of their own,
    /// which closes once released; the bound counts them, and one too many is `overloaded`.
    func testEachAffinityHasAConnectionOfItsOwnWithinTheBound() async throws {
        let (upstream, port) = try await startUpstream()
        let client = try makeClient(port: port, connections: 2)
        func push(_ affinity: UInt64) -> EventLoopFuture<UpstreamResponse> {
            client.send(method: "POST", path: "/3/device/\(Fixtures.token)",
                        headers: [HTTPHeader(name: "apns-topic", value: "com.example.app")], body: Self.payload, affinity: affinity)
        }
        for affinity: UInt64 in [7, 7, 9, 7, 9] {
            let status = try await push(affinity).get().status
            XCTAssertEqual(status, 200)
        }
        XCTAssertEqual(connectionsOpened(upstream), 2)
        let byConnection = Dictionary(grouping: upstream.journal.notifications(), by: \.connectionID).mapValues(\.count)
        XCTAssertEqual(byConnection.values.sorted(), [2, 3], "each affinity kept to its own connection")

        let third = try await failure(of: push(11))
        XCTAssertEqual(third.kind, "overloaded")
        XCTAssertTrue(third.description.contains("all 2 upstream connections are taken"), third.description)

        // Released, affinity 7's connection closes (GOAWAY, then close), and 11 gets one.
        client.release(affinity: 7)
        let closed = await upstream.journal.waitForEvents(count: 1, timeout: .seconds(5)) { event in
            if case .connectionClosed = event.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 1)
        let afterRelease = try await push(11).get().status
        XCTAssertEqual(afterRelease, 200)
        XCTAssertEqual(connectionsOpened(upstream), 3)
    }

    func testAnAffinitysConnectionLivesOnTheLoopItsRequestCameFromAndTheBoundSpansTheLoops() async throws {
        let (upstream, port) = try await startUpstream()
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let client = try UpstreamClient(
            endpoint: UpstreamEndpoint(host: "127.0.0.1", port: port),
            certificateChain: [.file(Fixtures.certificateDirectory + "/client-universal.pem")],
            privateKey: .file(Fixtures.certificateDirectory + "/client-universal-key.pem"), trustRoots: [.file(Fixtures.caPath)],
            group: loops, connections: 2, logger: Logger(label: "upstream-client-test") { _ in self.logs }
        )
        addTeardownBlock {
            await client.shutdown()
            try? await loops.shutdownGracefully()
        }
        let all = Array(loops.makeIterator())
        XCTAssertEqual(all.count, 2)
        // Sent from each loop (as a provider connection on that loop sends), a request is
        // worked on that loop: its answer completes there, with no hop between threads.
        for (affinity, loop) in zip([UInt64(1), 2], all) {
            let answer = try await loop.flatSubmit {
                client.send(method: "POST", path: "/3/device/\(Fixtures.token)",
                            headers: [HTTPHeader(name: "apns-topic", value: "com.example.app")], body: Self.payload,
                            affinity: affinity)
                    .map { response in (response.status, loop.inEventLoop) }
            }.get()
            XCTAssertEqual(answer.0, 200)
            XCTAssertTrue(answer.1, "affinity \(affinity)'s answer completes on the loop it was sent from")
        }
        XCTAssertEqual(connectionsOpened(upstream), 2)
        // The bound counts the connections of every loop.
        let third = try await failure(of: all[0].flatSubmit {
            client.send(method: "POST", path: "/3/device/\(Fixtures.token)", headers: [], body: Self.payload, affinity: 3)
        })
        XCTAssertEqual(third.kind, "overloaded")
    }

    // MARK: Failures

    func testAPortNothingListensOnIsUnreachableAtOnce() async throws {
        let listener = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(listener.localAddress?.port)
        try await listener.close()
        let client = try makeClient(port: port, connectTimeout: .seconds(5))

        let started = ContinuousClock.now
        let failure = try await failure(of: push(client))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        guard case .unreachable = failure else { return XCTFail("\(failure)") }
        XCTAssertEqual(failure.kind, "unreachable")
        XCTAssertTrue(failure.description.contains("127.0.0.1:\(port)"), failure.description)
        XCTAssertTrue(failure.description.lowercased().contains("refused"), failure.description)
        // A later request tries again (nothing is cached about the failure).
        guard case .unreachable = try await self.failure(of: push(client)) else { return XCTFail("not unreachable") }
    }

    func testAnUpstreamWhoseCertificateIsNotFromTheGivenCAIsATLSFailure() async throws {
        let (upstream, port) = try await startUpstream()
        // A CA of the development PKI, but not the one that signed the upstream's certificate.
        let otherCA = try DevelopmentCertificateFactory().generate().certificateAuthority.certificatePEM()
        let client = try makeClient(port: port, trustRoots: [.string(otherCA)])

        let failure = try await failure(of: push(client))
        guard case .tlsFailed = failure else { return XCTFail("\(failure)") }
        XCTAssertEqual(failure.kind, "tlsFailed")
        XCTAssertTrue(failure.description.contains("not trusted"), failure.description)
        XCTAssertTrue(failure.description.contains("unable to get local issuer certificate"), failure.description)
        XCTAssertTrue(upstream.journal.notifications().isEmpty)
        // Neither the failure nor any log line holds the client's key or certificate.
        try assertNoClientSecrets(in: [failure.description] + logs.lines)
    }

    func testAListenerThatNeverAnswersTLSTimesOutWithinTheRequestTimeout() async throws {
        let silent = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        addTeardownBlock { try? await silent.close() }
        let port = try XCTUnwrap(silent.localAddress?.port)
        let client = try makeClient(port: port, connectTimeout: .seconds(5), requestTimeout: .milliseconds(300))

        let started = ContinuousClock.now
        let failure = try await failure(of: push(client))
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(failure, .timedOut(after: .milliseconds(300)))
        XCTAssertEqual(failure.kind, "timedOut")
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(250))
        XCTAssertLessThan(elapsed, .seconds(2))
    }

    func testNoTLSWithinTheConnectTimeoutIsUnreachable() async throws {
        let silent = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        addTeardownBlock { try? await silent.close() }
        let port = try XCTUnwrap(silent.localAddress?.port)
        let client = try makeClient(port: port, connectTimeout: .milliseconds(300), requestTimeout: .seconds(5))

        let started = ContinuousClock.now
        let failure = try await failure(of: push(client))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        guard case .unreachable = failure else { return XCTFail("\(failure)") }
        XCTAssertTrue(failure.description.contains("TLS"), failure.description)
    }

    func testAnUpstreamThatDoesNotChooseHTTP2IsATLSFailureThatSaysSo() async throws {
        // A TLS server that ignores ALPN: the handshake completes with no protocol chosen.
        let port = try await startTLSListener(alpn: .none) { _ in }
        let failure = try await failure(of: push(try makeClient(port: port)))
        guard case .tlsFailed = failure else { return XCTFail("\(failure)") }
        XCTAssertTrue(failure.description.contains("did not choose HTTP/2 (h2) through ALPN"), failure.description)
    }

    func testAnUpstreamThatBreaksHTTP2IsAProtocolError() async throws {
        // It agrees to h2, then answers as an HTTP/1.1 server would.
        let port = try await startTLSListener(alpn: .require(["h2"])) { channel in
            try channel.pipeline.syncOperations.addHandler(WritesAfterHandshake("HTTP/1.1 400 Bad Request\r\n\r\n"))
        }
        let failure = try await failure(of: push(try makeClient(port: port)))
        guard case .protocolError = failure else { return XCTFail("\(failure)") }
        XCTAssertEqual(failure.kind, "protocolError")
        XCTAssertTrue(failure.description.contains("127.0.0.1:\(port)"), failure.description)
    }

    func testAnAnswerLongerThanAnyAPNsAnswerIsRefusedNotCut() async throws {
        let long = Self.token(0x109)
        let body = String(repeating: "x", count: 70_000)
        let (_, port) = try await startUpstream(scenario: """
            {"name": "long", "rules": [{"match": {"tokens": ["\(long)"]}, "action": {"type": "respond", "status": 200, "body": "\(body)"}}]}
            """)
        let client = try makeClient(port: port, connections: 1)
        let failure = try await failure(of: push(client, token: long))
        guard case .protocolError = failure else { return XCTFail("\(failure)") }
        XCTAssertTrue(failure.description.contains("65536 bytes"), failure.description)
        // The stream was given up on, not the connection.
        let next = try await push(client).get()
        XCTAssertEqual(next.status, 200)
    }

    func testARequestTheUpstreamNeverAnswersTimesOutAndTheConnectionServesTheNext() async throws {
        let stalled = Self.token(0xdead)
        let (upstream, port) = try await startUpstream(scenario: """
            {"name": "stall", "rules": [{"match": {"tokens": ["\(stalled)"]}, "action": {"type": "stall"}}]}
            """)
        let client = try makeClient(port: port, connections: 1, requestTimeout: .milliseconds(300))

        let started = ContinuousClock.now
        let failure = try await failure(of: push(client, token: stalled))
        XCTAssertEqual(failure, .timedOut(after: .milliseconds(300)))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        XCTAssertTrue(failure.description.contains("300 ms"), failure.description)

        // The stream was cancelled, not the connection: the next request goes over the same one.
        let next = try await push(client).get()
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(connectionsOpened(upstream), 1)
        let resets = upstream.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).compactMap { event -> UInt32? in
            guard case .http2Frame(let frame) = event.kind, frame.direction == .inbound,
                  case .rstStream(let code) = frame.details else { return nil }
            return code
        }
        XCTAssertEqual(resets, [HTTP2ErrorCode.cancel], "the upstream received one RST_STREAM, CANCEL")
    }

    func testAStreamTheUpstreamResetsIsReportedWithItsErrorCode() async throws {
        let reset = Self.token(0xbad)
        let (upstream, port) = try await startUpstream(scenario: """
            {"name": "reset", "rules": [{"match": {"tokens": ["\(reset)"]}, "action": {"type": "resetStream", "errorCode": 2}}]}
            """)
        let client = try makeClient(port: port, connections: 1)

        let failure = try await failure(of: push(client, token: reset))
        XCTAssertEqual(failure, .reset(errorCode: 2))
        XCTAssertEqual(failure.kind, "reset")
        XCTAssertTrue(failure.description.contains("INTERNAL_ERROR"), failure.description)
        // Only that stream: the connection lives on.
        let next = try await push(client).get()
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(connectionsOpened(upstream), 1)
    }

    func testARequestAGoAwayLeftUnprocessedIsSentAgainOnAFreshConnection() async throws {
        let (upstream, port) = try await startUpstream(scenario: """
            {"name": "goaway", "rules": [{"times": 1, "action": {"type": "goAway", "errorCode": "NO_ERROR", "lastStreamId": 0,
              "closeConnection": false, "answerRequest": false}}]}
            """)
        let client = try makeClient(port: port, connections: 1)

        let response = try await push(client).get()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(connectionsOpened(upstream), 2, "the retry went over a new connection")
        XCTAssertEqual(upstream.journal.notifications().compactMap(\.status).last, 200)
        // Later requests use the new connection.
        let next = try await push(client).get()
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(connectionsOpened(upstream), 2)
    }

    func testShutdownFailsWhatIsPendingAndEverythingAfter() async throws {
        let stalled = Self.token(0x5107)
        let (_, port) = try await startUpstream(scenario: """
            {"name": "stall", "rules": [{"match": {"tokens": ["\(stalled)"]}, "action": {"type": "stall"}}]}
            """)
        let client = try makeClient(port: port)
        let first = try await push(client).get()
        XCTAssertEqual(first.status, 200)

        let pending = push(client, token: stalled)
        await client.shutdown()
        let failed = try await failure(of: pending)
        XCTAssertEqual(failed, .shutDown)
        let later = try await failure(of: push(client))
        XCTAssertEqual(later, .shutDown)
        XCTAssertEqual(later.kind, "shutDown")
    }

    func testCredentialsThatCannotBeUsedAreNamedByTheirFileNeverByTheirContents() throws {
        let certificate = Fixtures.certificateDirectory + "/client-universal.pem"
        let mismatchedKey = Fixtures.certificateDirectory + "/client-sandbox-key.pem"
        do {
            _ = try UpstreamClient(
                endpoint: .sandbox, certificateChain: [.file(certificate)], privateKey: .file(mismatchedKey), group: group,
                logger: Logger(label: "test") { _ in self.logs }
            )
            XCTFail("a key of another certificate was taken")
        } catch {
            XCTAssertTrue("\(error)".contains("does not match"), "\(error)")
            try assertNoClientSecrets(in: ["\(error)"], key: mismatchedKey)
        }
        // A key given in memory is named by its size only.
        let keyText = try String(contentsOfFile: mismatchedKey, encoding: .utf8)
        do {
            _ = try UpstreamClient(
                endpoint: .sandbox, certificateChain: [.file(certificate)], privateKey: .bytes(Array(keyText.utf8.dropLast(40))),
                group: group, logger: Logger(label: "test") { _ in self.logs }
            )
            XCTFail("a truncated key was taken")
        } catch {
            XCTAssertTrue("\(error)".contains("in-memory PEM"), "\(error)")
            try assertNoClientSecrets(in: ["\(error)"], key: mismatchedKey)
        }
        XCTAssertTrue(logs.lines.isEmpty, "\(logs.lines)")
    }

    private func assertNoClientSecrets(
        in texts: [String], key: String = Fixtures.certificateDirectory + "/client-universal-key.pem",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for path in [key, Fixtures.certificateDirectory + "/client-universal.pem"] {
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("-----") }
            for text in texts {
                for secret in lines where text.contains(secret) {
                    XCTFail("\(path) is quoted in: \(text)", file: file, line: line)
                }
            }
        }
    }

    // MARK: Endpoints

    /// The fields a relayed request leaves behind: pseudo-headers (the client writes its own),
    /// those HTTP/2 forbids in a request (RFC 9113, section 8.2.2) in any case, and `host`.
    func testTheFieldsARequestLeavesBehindAreThoseHTTP2ForbidsInAnyCase() {
        let table: [(name: String, value: String, leftOut: Bool)] = [
            (":path", "/3/device/x", true), (":authority", "api.push.apple.com", true),
            ("host", "api.push.apple.com", true), ("Host", "x", true),
            ("connection", "keep-alive", true), ("Connection", "close", true), ("keep-alive", "5", true),
            ("KEEP-ALIVE", "5", true), ("proxy-connection", "x", true), ("transfer-encoding", "chunked", true),
            ("Transfer-Encoding", "chunked", true), ("upgrade", "h2c", true),
            ("te", "trailers", false), ("TE", "Trailers", false), ("te", "gzip", true),
            ("apns-topic", "com.example.app", false), ("authorization", "bearer x", false),
            ("hosts", "x", false), ("upgraded", "x", false), ("connections", "x", false), ("keep_alive", "5", false),
            ("t", "x", false), ("", "", false),
        ]
        for row in table {
            XCTAssertEqual(
                UpstreamClient.isLeftOut(HTTPHeader(name: row.name, value: row.value)), row.leftOut, "\(row.name): \(row.value)"
            )
        }
    }

    func testEndpointsAreReadFromTheWordsAndURLsAUserWrites() throws {
        XCTAssertEqual(try UpstreamEndpoint.parse("sandbox"), UpstreamEndpoint(host: "api.sandbox.push.apple.com", port: 443))
        XCTAssertEqual(try UpstreamEndpoint.parse("production"), UpstreamEndpoint(host: "api.push.apple.com", port: 443))
        XCTAssertEqual(try UpstreamEndpoint.parse("sandbox").origin, "https://api.sandbox.push.apple.com")

        let cases: [(String, String, Int, String)] = [
            ("https://127.0.0.1:2197", "127.0.0.1", 2197, "https://127.0.0.1:2197"),
            ("https://127.0.0.1:2197/", "127.0.0.1", 2197, "https://127.0.0.1:2197"),
            ("https://[::1]:2197", "::1", 2197, "https://[::1]:2197"),
            ("https://[::1]", "::1", 443, "https://[::1]"),
            ("https://apns.example.com", "apns.example.com", 443, "https://apns.example.com"),
            ("https://apns.example.com:443", "apns.example.com", 443, "https://apns.example.com"),
            ("https://apns-1.example.com:65535", "apns-1.example.com", 65535, "https://apns-1.example.com:65535"),
            ("https://localhost:1", "localhost", 1, "https://localhost:1"),
        ]
        for (text, host, port, origin) in cases {
            let endpoint = try UpstreamEndpoint.parse(text)
            XCTAssertEqual(endpoint.host, host, text)
            XCTAssertEqual(endpoint.port, port, text)
            XCTAssertEqual(endpoint.origin, origin, text)
        }

        func refusal(_ text: String) -> String {
            do {
                let endpoint = try UpstreamEndpoint.parse(text)
                XCTFail("\(text) was taken as \(endpoint)")
                return ""
            } catch {
                XCTAssertTrue(error.description.contains(text), "the error quotes what was given: \(error)")
                return error.description
            }
        }
        XCTAssertTrue(refusal("http://127.0.0.1:2197").contains("TLS only"))
        XCTAssertTrue(refusal("127.0.0.1:2197").contains("https://host[:port]"))
        XCTAssertTrue(refusal("staging").contains("sandbox"))
        XCTAssertTrue(refusal("https://127.0.0.1:2197/3/device").contains("path"))
        XCTAssertTrue(refusal("https://127.0.0.1:2197?x=1").contains("query"))
        XCTAssertTrue(refusal("https://user:secret@127.0.0.1:2197").contains("user"))
        XCTAssertTrue(refusal("https://127.0.0.1:0").contains("1 to 65535"))
        XCTAssertTrue(refusal("https://127.0.0.1:65536").contains("1 to 65535"))
        XCTAssertTrue(refusal("https://127.0.0.1:+443").contains("1 to 65535"))
        XCTAssertTrue(refusal("https://127.0.0.1:").contains("1 to 65535"))
        XCTAssertTrue(refusal("https://").contains("host"))
        XCTAssertTrue(refusal("https://[::1").contains("]"))
        XCTAssertTrue(refusal("https://[not-an-address]:2197").contains("IPv6"))
        XCTAssertTrue(refusal("https://300.1.1.1").contains("IPv4"))
        XCTAssertTrue(refusal("https://bad_name.example.com").contains("host name"))
        XCTAssertTrue(refusal("https://-bad.example.com").contains("host name"))

        XCTAssertEqual(UpstreamEndpoint.channelManagement(for: "sandbox"),
                       UpstreamEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195))
        XCTAssertEqual(UpstreamEndpoint.channelManagement(for: "production"),
                       UpstreamEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196))
        XCTAssertNil(UpstreamEndpoint.channelManagement(for: "https://127.0.0.1:2197"))
    }
}

/// Every log line the client writes (message and metadata), to check what they say.
private final class LogRecorder: LogHandler, Sendable {
    private let recorded = Mutex<[String]>([])
    var lines: [String] { recorded.withLock { $0 } }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}  // swiftlint:disable:this unused_setter_value
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}  // swiftlint:disable:this unused_setter_value
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}  // swiftlint:disable:this unused_setter_value
    }

    func log(event: LogEvent) {
        let metadata = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        recorded.withLock { $0.append("\(event.level) \(event.message) \(metadata)") }
    }
}

/// Writes `text` as soon as TLS is up, whatever the client sent.
private final class WritesAfterHandshake: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let text: String

    init(_ text: String) {
        self.text = text
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
