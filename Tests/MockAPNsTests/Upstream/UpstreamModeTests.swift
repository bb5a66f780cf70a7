import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsLogging
import MockAPNsObservation
import MockAPNsTestSupport
import XCTest

/// Upstream mode over real TLS on 127.0.0.1: a provider (the real `curl --http2`) pushes
/// through one MockAPNs (the proxy) to another (the upstream), whose scenario makes it answer
/// otherwise than the proxy's own rules would.
final class UpstreamModeTests: XCTestCase {
    private let headers = [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]
    /// The upstream answers this token 410 Unregistered with a fixed timestamp; the proxy's
    /// own rules would accept it.
    private static let goneToken = String(repeating: "0a", count: 32)
    /// The upstream holds its answer to this token for 3 s.
    private static let slowToken = String(repeating: "5e", count: 32)
    /// The proxy's own scenario answers this token 429 and resets the stream of the next.
    private static let scriptedToken = String(repeating: "c4", count: 32)
    private static let resetToken = String(repeating: "d5", count: 32)

    private static let upstreamScenario = """
        {"name": "upstream", "rules": [
          {"name": "gone", "match": {"tokens": ["\(goneToken)"]}, "action": {"type": "reject", "reason": "Unregistered", "timestamp": 1700000000000}},
          {"name": "slow", "match": {"tokens": ["\(slowToken)"]}, "delay": {"milliseconds": 3000}}
        ]}
        """
    private static let proxyScenario = """
        {"name": "chaos", "rules": [
          {"name": "throttle", "match": {"tokens": ["\(scriptedToken)"]}, "action": {"type": "reject", "reason": "TooManyRequests"}},
          {"name": "reset", "match": {"tokens": ["\(resetToken)"]}, "action": {"type": "resetStream", "errorCode": 2}}
        ]}
        """

    private struct Pair {
        let upstream: MockAPNsServer
        let upstreamPorts: BoundPorts
        let proxy: MockAPNsServer
        let proxyPorts: BoundPorts
    }

    private func start(
        upstreamURL: String? = nil, adjust: (inout MockAPNsConfiguration) -> Void = { _ in }
    ) async throws -> Pair {
        let (upstream, upstreamPorts) = try await TestServer.start { $0.broadcast.managePort = 0 }
        addTeardownBlock { try await upstream.shutdown() }
        try upstream.replaceScenario(jsonText: Self.upstreamScenario)
        let (proxy, proxyPorts) = try await TestServer.start {
            $0.upstream = upstreamURL ?? "https://127.0.0.1:\(upstreamPorts.http2)"
            $0.upstreamSettings.trustRoots = Fixtures.caPath
            $0.upstreamSettings.certificateChain = Fixtures.certificateDirectory + "/client-universal.pem"
            $0.upstreamSettings.privateKey = Fixtures.certificateDirectory + "/client-universal-key.pem"
            $0.upstreamSettings.requestTimeoutSeconds = 1
            $0.upstreamSettings.connectTimeoutSeconds = 1
            if let manage = upstreamPorts.channelManagement {
                $0.upstreamSettings.channelManagementTarget = "https://127.0.0.1:\(manage)"
            }
            $0.broadcast.managePort = 0
            adjust(&$0)
        }
        addTeardownBlock { try await proxy.shutdown() }
        try proxy.replaceScenario(jsonText: Self.proxyScenario)
        return Pair(upstream: upstream, upstreamPorts: upstreamPorts, proxy: proxy, proxyPorts: proxyPorts)
    }

    private func diagnoses(_ server: MockAPNsServer, _ code: DiagnosisCode) -> [String] {
        server.journal.events().compactMap { event in
            if case .diagnosis(code, let message, _) = event.kind { return message }
            return nil
        }
    }

    // MARK: Relayed answers

    func testTheUpstreamsAnswersReachTheProviderUnchangedAndItsRecordsSayWhereTheyCameFrom() async throws {
        let pair = try await start()
        let curl = CurlClient(port: pair.proxyPorts.http2)

        let accepted = try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers)
        XCTAssertEqual(accepted.status, 200)
        let upstreamRecord = try XCTUnwrap(pair.upstream.journal.notifications(matching: NotificationFilter(deviceToken: Fixtures.token)).last)
        // The upstream's own ids, not new ones of the proxy's.
        XCTAssertEqual(accepted.header("apns-id"), upstreamRecord.responseAPNsID)
        XCTAssertNotNil(accepted.header("apns-unique-id"))
        XCTAssertEqual(accepted.header("apns-unique-id"), upstreamRecord.answer.uniqueID?.text)
        XCTAssertEqual(accepted.body, "")
        // The upstream saw the provider's request as sent, from the proxy's certificate.
        XCTAssertEqual(upstreamRecord.topic, "com.example.app")
        XCTAssertEqual(upstreamRecord.payloadText, #"{"aps":{"alert":"hello"}}"#)
        XCTAssertEqual(upstreamRecord.authentication.kind, "certificate")

        let gone = try curl.send(path: "/3/device/\(Self.goneToken)", headers: headers)
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.body, #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        XCTAssertEqual(gone.header("content-type"), "application/json")

        let records = pair.proxy.journal.notifications()
        XCTAssertEqual(records.count, 2)
        let first = try XCTUnwrap(records.first?.upstream)
        XCTAssertEqual(first.origin, "https://127.0.0.1:\(pair.upstreamPorts.http2)")
        XCTAssertNil(first.failureKind)
        XCTAssertEqual(first.ownStatus, 200)
        XCTAssertFalse(first.disagrees)
        XCTAssertGreaterThan(first.latencyMicroseconds, 0)
        XCTAssertEqual(records.first?.responseAPNsID, accepted.header("apns-id"))

        // The fidelity check: the proxy's own rules would have accepted the gone token.
        let second = try XCTUnwrap(records.last)
        XCTAssertEqual(second.status, 410)
        XCTAssertEqual(second.reason, .unregistered)
        XCTAssertEqual(second.upstream?.ownStatus, 200)
        XCTAssertNil(second.upstream?.ownReason)
        XCTAssertEqual(second.upstream?.disagrees, true)
        let disagreement = try XCTUnwrap(diagnoses(pair.proxy, .fidelityDisagreement).first)
        XCTAssertTrue(disagreement.contains("answered 410 Unregistered; MockAPNs' own rules answer 200"), disagreement)

        let verdicts = await pair.proxy.verdictReport()
        let report = try XCTUnwrap(verdicts)
        XCTAssertEqual(report.relayedToUpstream, 2)
        XCTAssertEqual(report.upstreamFailures, 0)
        XCTAssertEqual(report.disagreements, ["upstream 410 Unregistered; MockAPNs 200": 1])
        // The verdicts read relayed answers like any: sending again to the gone token breaks its rule.
        _ = try curl.send(path: "/3/device/\(Self.goneToken)", headers: headers)
        let later = await pair.proxy.verdictReport()
        let after = try XCTUnwrap(later)
        XCTAssertTrue(after.brokenRules.contains(.unregisteredToken), "\(after.brokenRules)")
    }

    func testProviderTokensAreForwardedAsTheyAreAndUnknownKeysAreLeftToTheUpstream() async throws {
        // The proxy knows no provider key at all: the upstream holds them, as Apple does.
        let emptyKeys = Fixtures.temporaryPath("upstream-no-keys")
        try FileManager.default.createDirectory(atPath: emptyKeys, withIntermediateDirectories: true)
        let pair = try await start(adjust: { $0.keyDirectory = emptyKeys })
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        let token = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: Int64(Date().timeIntervalSince1970))
        let curl = CurlClient(port: pair.proxyPorts.http2, certificate: nil)
        let response = try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers + [("authorization", "bearer \(token)")])
        XCTAssertEqual(response.status, 200, response.body)
        let upstreamRecord = try XCTUnwrap(pair.upstream.journal.notifications().last)
        XCTAssertEqual(upstreamRecord.authentication.kind, "providerToken")
        XCTAssertEqual(upstreamRecord.authentication.keyID, "SANDBOX001")
        // The proxy judged the rest of the token, and agreed.
        let record = try XCTUnwrap(pair.proxy.journal.notifications().last)
        XCTAssertEqual(record.upstream?.ownStatus, 200)
        XCTAssertEqual(record.upstream?.disagrees, false)
        // A forged signature is the upstream's to refuse, and its answer is relayed.
        let forged = String(token.dropLast(4)) + "AAAA"
        let refused = try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers + [("authorization", "bearer \(forged)")])
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.body, #"{"reason":"InvalidProviderToken"}"#)
    }

    /// Provider connections one after another, each with a token of its own: the proxy gives
    /// each an upstream connection of its own and closes it after, because Apple refuses a new
    /// provider token on a connection within 20 minutes of the last. Over a shared pool the
    /// third push would meet the first one's connection and be answered 429.
    func testEachProviderConnectionIsRelayedOverAnUpstreamConnectionOfItsOwn() async throws {
        let pair = try await start(adjust: { $0.upstreamSettings.connections = 2 })
        let curl = CurlClient(port: pair.proxyPorts.http2, certificate: nil)
        for keyID in ["SANDBOX001", "BOTHENV001", "SANDBOX001", "BOTHENV001"] {
            let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_\(keyID).p8", encoding: .utf8)
            let token = try ProviderTokenSigner(keyID: keyID, teamID: "TEAM00000A", privateKeyPEM: pem)
                .token(issuedAt: Int64(Date().timeIntervalSince1970))
            let response = try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers + [("authorization", "bearer \(token)")])
            XCTAssertEqual(response.status, 200, response.body)
            // The provider's connection is gone; so is its upstream one, before the next opens.
            let closed = await pair.upstream.journal.waitForEvents(count: 1, after: pair.upstream.journal.notifications().last?.sequence,
                                                                   timeout: .seconds(5)) { event in
                if case .connectionClosed = event.kind { return true }
                return false
            }
            XCTAssertEqual(closed.count, 1, "the upstream connection of \(keyID)'s push was not closed")
        }
        let upstreamRecords = pair.upstream.journal.notifications()
        XCTAssertEqual(upstreamRecords.map(\.authentication.keyID), ["SANDBOX001", "BOTHENV001", "SANDBOX001", "BOTHENV001"])
        XCTAssertEqual(Set(upstreamRecords.compactMap(\.connectionID)).count, 4, "one upstream connection per provider connection")
    }

    /// The access log says where each answer came from, and MockAPNs' own when it differs.
    func testTheAccessLogSaysWhereAnswersCameFrom() async throws {
        for format in [LogFormat.text, .json] {
            let path = Fixtures.temporaryPath("upstream-access.log")
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            let pair = try await start(adjust: {
                $0.accessLog = MockAPNsConfiguration.AccessLogSettings(format: format, output: LogOutput(descriptor: descriptor))
            })
            let curl = CurlClient(port: pair.proxyPorts.http2)
            XCTAssertEqual(try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers).status, 200)
            XCTAssertEqual(try curl.send(path: "/3/device/\(Self.goneToken)", headers: headers).status, 410)
            try await pair.proxy.shutdown()
            let pushes = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
                .filter { $0.contains("push c") || $0.contains(#""access":"push""#) }
            close(descriptor)
            unlink(path)
            XCTAssertEqual(pushes.count, 2, "\(format)")
            switch format {
            case .text:
                XCTAssertNotNil(pushes[0].range(of: #" 200 upstream=\d+ms \d+us$"#, options: .regularExpression), pushes[0])
                XCTAssertNotNil(pushes[1].range(of: #" 410 Unregistered upstream=\d+ms mockapns=200 \d+us$"#, options: .regularExpression), pushes[1])
            case .json:
                XCTAssertNotNil(pushes[0].range(of: #""upstreamMicros":\d+"#, options: .regularExpression), pushes[0])
                XCTAssertFalse(pushes[0].contains("mockapnsAnswer"), pushes[0])
                XCTAssertTrue(pushes[1].contains(#""mockapnsAnswer":"200""#), pushes[1])
            }
        }
    }

    // MARK: Chaos

    func testTheScenariosAnswersAndFaultsNeverReachTheUpstream() async throws {
        let pair = try await start()
        let curl = CurlClient(port: pair.proxyPorts.http2)
        let throttled = try curl.send(path: "/3/device/\(Self.scriptedToken)", headers: headers)
        XCTAssertEqual(throttled.status, 429)
        XCTAssertEqual(throttled.body, #"{"reason":"TooManyRequests"}"#)
        XCTAssertThrowsError(try curl.send(path: "/3/device/\(Self.resetToken)", headers: headers)) { error in
            XCTAssertTrue("\(error)".contains("stream") || "\(error)".contains("HTTP/2"), "\(error)")
        }
        let passed = try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers)
        XCTAssertEqual(passed.status, 200)
        // The upstream saw only the request no rule answered.
        let seen = pair.upstream.journal.notifications()
        XCTAssertEqual(seen.map(\.deviceToken), [Fixtures.token])
        let records = pair.proxy.journal.notifications()
        XCTAssertEqual(records.count, 3)
        XCTAssertNil(records[0].upstream, "a scripted answer is MockAPNs' own")
        XCTAssertEqual(records[0].rule, "throttle")
        XCTAssertNil(records[1].upstream)
        XCTAssertNotNil(records[2].upstream)
    }

    // MARK: An upstream that fails

    func testAnUpstreamThatIsDownGets503AndADiagnosisNotAHang() async throws {
        let closedPort = try Self.portNothingListensOn()
        let pair = try await start(upstreamURL: "https://127.0.0.1:\(closedPort)")
        let curl = CurlClient(port: pair.proxyPorts.http2)
        let response = try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers)
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.body, #"{"reason":"ServiceUnavailable"}"#)
        XCTAssertNotNil(response.header("apns-id"))
        let record = try XCTUnwrap(pair.proxy.journal.notifications().last)
        XCTAssertEqual(record.upstream?.failureKind, "unreachable")
        XCTAssertEqual(record.upstream?.origin, "https://127.0.0.1:\(closedPort)")
        let diagnosis = try XCTUnwrap(diagnoses(pair.proxy, .upstreamFailed).first)
        XCTAssertTrue(diagnosis.contains("gave no answer"), diagnosis)
        XCTAssertTrue(diagnosis.contains("503 ServiceUnavailable"), diagnosis)
        let verdicts = await pair.proxy.verdictReport()
        let report = try XCTUnwrap(verdicts)
        XCTAssertEqual(report.upstreamFailures, 1)
        XCTAssertEqual(report.relayedToUpstream, 0)
    }

    func testASlowUpstreamTimesOutWith503() async throws {
        let pair = try await start()
        let curl = CurlClient(port: pair.proxyPorts.http2)
        let response = try curl.send(path: "/3/device/\(Self.slowToken)", headers: headers)
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.body, #"{"reason":"ServiceUnavailable"}"#)
        let record = try XCTUnwrap(pair.proxy.journal.notifications().last)
        XCTAssertEqual(record.upstream?.failureKind, "timedOut")
        // The connection to the upstream still serves the next request.
        XCTAssertEqual(try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers).status, 200)
    }

    func testAnUpstreamWhoseCertificateIsNotTrustedIsRefused() async throws {
        let pair = try await start(adjust: { $0.upstreamSettings.trustRoots = Fixtures.certificateDirectory + "/client-untrusted.pem" })
        let response = try CurlClient(port: pair.proxyPorts.http2).send(path: "/3/device/\(Fixtures.token)", headers: headers)
        XCTAssertEqual(response.status, 503)
        let record = try XCTUnwrap(pair.proxy.journal.notifications().last)
        XCTAssertEqual(record.upstream?.failureKind, "tlsFailed")
        XCTAssertTrue(pair.upstream.journal.notifications().isEmpty)
    }

    // MARK: Secrets

    func testNoRecordHoldsTheUpstreamKeyOrAProviderTokensSignature() async throws {
        let file = Fixtures.temporaryPath("upstream-journal.jsonl")
        let pair = try await start(adjust: { $0.journalFile = file })
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        let token = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: Int64(Date().timeIntervalSince1970))
        _ = try CurlClient(port: pair.proxyPorts.http2).send(path: "/3/device/\(Fixtures.token)", headers: headers)
        _ = try CurlClient(port: pair.proxyPorts.http2, certificate: nil)
            .send(path: "/3/device/\(Fixtures.token)", headers: headers + [("authorization", "bearer \(token)")])
        try await pair.proxy.shutdown()
        let journal = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(journal.contains(#""upstream":{"origin":"https://127.0.0.1:"#), "the file records the relays")
        let keyLines = try String(contentsOfFile: Fixtures.certificateDirectory + "/client-universal-key.pem", encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("-----") }
        for line in keyLines { XCTAssertFalse(journal.contains(line), "the upstream client key is in the journal") }
        let signature = try XCTUnwrap(token.split(separator: ".").last)
        XCTAssertFalse(journal.contains(signature), "a provider token's signature is in the journal")
    }

    // MARK: Broadcasts

    func testChannelManagementAndBroadcastsAreRelayedToTheirUpstreams() async throws {
        let pair = try await start()
        let manage = try XCTUnwrap(pair.proxyPorts.channelManagement)
        let created = try CurlClient(port: manage).send(
            path: "/1/apps/com.example.app/channels", body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        XCTAssertEqual(created.status, 201, created.body)
        let channel = try XCTUnwrap(created.header("apns-channel-id"))
        // The channel is the upstream's: the proxy made none of its own.
        XCTAssertEqual(pair.upstream.channelOperations(channel: channel).map(\.operation), [.create])
        let relayedOperations = pair.proxy.channelOperations(channel: channel)
        XCTAssertEqual(relayedOperations.map(\.outcome.response.status), [201])
        XCTAssertNotNil(relayedOperations.first?.answer.upstream)
        let sent = try CurlClient(port: pair.proxyPorts.http2).send(
            path: "/4/broadcasts/apps/com.example.app",
            headers: [("apns-channel-id", channel), ("apns-push-type", "liveactivity"), ("apns-priority", "10")],
            body: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}"#)
        XCTAssertEqual(sent.status, 200, sent.body)
        XCTAssertEqual(pair.upstream.broadcasts(channel: channel).count, 1)
        XCTAssertEqual(sent.header("apns-id"), pair.upstream.broadcasts(channel: channel).first?.answer.apnsID?.text)
        // Channels live upstream, so MockAPNs' own view of them is not compared.
        XCTAssertTrue(diagnoses(pair.proxy, .fidelityDisagreement).isEmpty)
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago: bound, then closed.
    private static func portNothingListensOn() throws -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw XCTSkip("no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw XCTSkip("could not bind a socket") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
