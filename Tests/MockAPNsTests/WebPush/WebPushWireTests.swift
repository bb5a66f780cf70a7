import Crypto
import Foundation
@testable import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsWebPush
import MockAPNsWire
import XCTest

/// Safari's web push endpoint over real TLS on 127.0.0.1, driven by the real curl over
/// HTTP/1.1 and HTTP/2: a subscription made as a page makes it, a message encrypted and
/// signed as an application server does (with the project's own encoder), Apple's answers,
/// the record with the decrypted message, the scenario, the delivery model and the verdicts.
final class WebPushWireTests: XCTestCase {
    /// The application server's VAPID key pair.
    let vapidKey = P256.Signing.PrivateKey()
    var applicationServerKey: String { Self.base64URL(Array(vapidKey.publicKey.x963Representation)) }

    static let declarative = #"{"web_push":8030,"notification":{"title":"Order shipped","body":"Arrives Tuesday","navigate":"https://shop.example.com/orders/42"},"app_badge":"3"}"#

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: String) throws -> [UInt8] {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Array(try XCTUnwrap(Data(base64Encoded: standard)))
    }

    static func start(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) async throws -> (MockAPNsServer, Int) {
        let (server, ports) = try await TestServer.start(adjust)
        guard let port = ports.webPush else {
            try await server.shutdown()
            throw XCTSkip("the web push listener did not report its port")
        }
        return (server, port)
    }

    /// A push as pywebpush sends it: VAPID (`vapid t=..., k=...`), TTL, Urgency, the
    /// aes128gcm body, through curl over `httpVersion`.
    func push(
        _ subscription: WebPushSubscriptionInfo, port: Int, message: String = declarative, httpVersion: String = "--http1.1",
        subject: String = "mailto:ops@example.com", audience: String? = nil, headers extra: [(String, String)] = [("TTL", "60")],
        authorization given: String? = nil
    ) throws -> CurlResponse {
        let body = try WebPushEncryptor.encrypt(
            Array(message.utf8), p256dh: try Self.bytes(base64URL: subscription.p256dh), auth: try Self.bytes(base64URL: subscription.auth)
        )
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString)")
        try Data(body).write(to: bodyFile)
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        let authorization = given ?? VAPIDSigner.authorization(
            key: vapidKey, audience: audience ?? "https://127.0.0.1:\(port)", subject: subject,
            expiration: Int64(Date().timeIntervalSince1970) + 3600
        )
        var client = CurlClient(port: port)
        client.certificate = nil
        client.extraArguments = [httpVersion, "--data-binary", "@\(bodyFile.path)"]
        let path = try XCTUnwrap(URL(string: subscription.endpoint)).path
        return try client.send(
            path: path,
            headers: [("Authorization", authorization), ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream")] + extra,
            body: nil
        )
    }

    func testASubscriptionReceivesADeclarativeMessageOverHTTP1AndHTTP2AndTheRecordHoldsItDecrypted() async throws {
        let (server, port) = try await Self.start()
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        XCTAssertEqual(subscription.endpoint, "https://127.0.0.1:\(port)/\(subscription.id)")
        XCTAssertEqual(try Self.bytes(base64URL: subscription.p256dh).count, 65)
        XCTAssertEqual(try Self.bytes(base64URL: subscription.auth).count, 16)

        for version in ["--http1.1", "--http2"] {
            let response = try push(subscription, port: port, httpVersion: version, headers: [("TTL", "60"), ("Urgency", "high"), ("Topic", "order-42")])
            XCTAssertEqual(response.status, 201, "\(version): \(response.body)")
            XCTAssertEqual(response.httpVersion, version == "--http2" ? "HTTP/2" : "HTTP/1.1")
            XCTAssertEqual(response.body, "")
            XCTAssertNil(response.header("apns-id"))
        }
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(deviceToken: subscription.id))
        XCTAssertEqual(records.count, 2)
        for record in records {
            XCTAssertEqual(record.transport, .webPush)
            XCTAssertEqual(record.status, 201)
            XCTAssertTrue(record.accepted)
            XCTAssertEqual(record.topic, "order-42")
            XCTAssertEqual(record.collapseID, "order-42")
            XCTAssertEqual(record.authentication.kind, "vapid")
            let web = try XCTUnwrap(record.webPush)
            XCTAssertEqual(web.messageText, Self.declarative)
            XCTAssertEqual(web.ttl, 60)
            XCTAssertEqual(web.urgency, "high")
            XCTAssertEqual(web.contentEncoding, "aes128gcm")
            XCTAssertEqual(web.subject, "mailto:ops@example.com")
            XCTAssertEqual(web.audience, "https://127.0.0.1:\(port)")
            XCTAssertEqual(web.applicationServerKey, applicationServerKey)
            XCTAssertEqual(web.notification?.title, "Order shipped")
            XCTAssertEqual(web.notification?.body, "Arrives Tuesday")
            XCTAssertEqual(web.notification?.navigate, "https://shop.example.com/orders/42")
            XCTAssertEqual(web.notification?.appBadge, 3)
            XCTAssertNil(web.messageProblem)
            // The JSON form carries the same, and never the VAPID token.
            let json = try XCTUnwrap(server.journal.events(matching: JournalEventFilter(kinds: ["notification"])).last?.json)
            XCTAssertTrue(json.contains(#""message":"{\"web_push\":8030"#), json)
            XCTAssertFalse(json.contains("vapid t="), json)
        }
    }

    /// A VAPID token is a bearer credential until it expires: no record (frames included) and
    /// no JSON holds its signature.
    func testNoRecordHoldsTheVAPIDTokensSignature() async throws {
        let (server, port) = try await Self.start()
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        let authorization = VAPIDSigner.authorization(
            key: vapidKey, audience: "https://127.0.0.1:\(port)", subject: "mailto:ops@example.com",
            expiration: Int64(Date().timeIntervalSince1970) + 3600
        )
        let jwt = try XCTUnwrap(authorization.split(separator: "t=").last?.split(separator: ",").first)
        let signature = String(try XCTUnwrap(jwt.split(separator: ".").last))
        XCTAssertGreaterThan(signature.count, 40)
        for version in ["--http1.1", "--http2"] {
            XCTAssertEqual(try push(subscription, port: port, httpVersion: version, authorization: authorization).status, 201)
        }
        _ = try await server.waitForNotifications(count: 2, matching: NotificationFilter(deviceToken: subscription.id))
        let events = server.journal.events()
        XCTAssertTrue(events.contains { $0.name == "http2Frame" && $0.json.contains("authorization") }, "frames are recorded")
        for event in events {
            XCTAssertFalse(event.json.contains(signature), event.json)
        }
    }

    /// Apple's one documented web push refusal, for each cause field reports name, with the
    /// diagnosis naming the cause.
    func testEachBadJwtTokenCauseIsAnswered403WithADiagnosisNamingIt() async throws {
        let (server, port) = try await Self.start()
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        let cases: [(subject: String, audience: String?, code: String, mentions: String)] = [
            ("mailto: ops@example.com", nil, "webPush.vapidSubject", "space"),
            ("mailto:<ops@example.com>", nil, "webPush.vapidSubject", "angle"),
            ("mailto:ops@localhost", nil, "webPush.vapidSubject", "localhost"),
            ("mailto:ops@example.com", "https://web.push.apple.com", "webPush.vapidAudience", "https://web.push.apple.com"),
        ]
        for (index, item) in cases.enumerated() {
            let response = try push(subscription, port: port, subject: item.subject, audience: item.audience)
            XCTAssertEqual(response.status, 403, item.subject)
            XCTAssertEqual(response.body, #"{"reason":"BadJwtToken"}"#)
            let code = item.code
            let diagnoses = await server.journal.waitForEvents(
                count: 1 + cases[..<index].filter { $0.code == code }.count, timeout: .seconds(10)
            ) { $0.json.contains(#""code":"\#(code)""#) }
            let message = try XCTUnwrap(diagnoses.last?.json)
            XCTAssertTrue(message.lowercased().contains(item.mentions.lowercased()), message)
        }
        let refused = server.notifications(matching: NotificationFilter(deviceToken: subscription.id))
        XCTAssertEqual(refused.count, cases.count)
        XCTAssertTrue(refused.allSatisfy { $0.reason == .badJwtToken && $0.authentication.refusal == .badJwtToken })
    }

    /// A revoked subscription answers 410 Unregistered, and a provider that keeps sending is
    /// flagged by the verdicts.
    func testAGoneSubscriptionAnswers410AndAProviderThatKeepsSendingIsFlagged() async throws {
        let (server, port) = try await Self.start()
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        XCTAssertTrue(server.revokeWebPushSubscription(subscription.id))
        let first = try push(subscription, port: port)
        XCTAssertEqual(first.status, 410, first.body)
        XCTAssertTrue(first.body.hasPrefix(#"{"reason":"Unregistered","timestamp":"#), first.body)
        let second = try push(subscription, port: port)
        XCTAssertEqual(second.status, 410)
        _ = try await server.waitForNotifications(count: 2, matching: NotificationFilter(deviceToken: subscription.id))
        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        XCTAssertTrue(report.brokenRules.contains(.unregisteredToken), "\(report.brokenRules)")
        // The application server is known by its VAPID key; one connection per push is no churn on web push.
        let provider = try XCTUnwrap(report.provider(.vapidKey(applicationServerKey)), "\(report.providers.map(\.provider))")
        XCTAssertEqual(provider.rule(.unregisteredToken).findings, 1)
        XCTAssertEqual(provider.rule(.connectionMisuse).findings, 0)
    }

    /// The gone-subscription answer Apple is seen to give after a permission is removed (201)
    /// is one setting away, with the same diagnosis.
    func testTheGoneAnswerCanBeApplesObservedAcceptance() async throws {
        let (server, port) = try await Self.start { $0.webPush.options.goneAnswer = .accepted }
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        server.expireWebPushSubscription(subscription.id)
        let response = try push(subscription, port: port)
        XCTAssertEqual(response.status, 201, response.body)
        let diagnoses = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            $0.json.contains(#""code":"webPush.goneSubscription""#)
        }
        XCTAssertEqual(diagnoses.count, 1)
    }

    /// Scenario rules match web push requests by protocol and script Apple's answers.
    func testAScenarioScripts429ForWebPushAndTheRecordNamesTheRule() async throws {
        let scenario = try Scenario.decode(jsonText: #"""
        {"name": "web push throttled", "rules": [
          {"name": "throttle", "match": {"protocols": ["webPush"]}, "action": {"type": "reject", "reason": "TooManyRequests"}}
        ]}
        """#)
        let (server, port) = try await Self.start { $0.scenario = scenario }
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        for version in ["--http1.1", "--http2"] {
            let response = try push(subscription, port: port, httpVersion: version)
            XCTAssertEqual(response.status, 429, response.body)
            XCTAssertEqual(response.body, #"{"reason":"TooManyRequests"}"#)
        }
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(deviceToken: subscription.id))
        XCTAssertEqual(records.map(\.rule), ["throttle", "throttle"])
        XCTAssertEqual(records.map(\.reason), [.tooManyRequests, .tooManyRequests])
    }

    /// A subscription made with a session's token is the session's: its scenario decides the
    /// pushes to it, on HTTP/1.1 and HTTP/2 alike, its records say the session, and only its
    /// view lists it; the server's own subscription is decided as before.
    func testASessionsSubscriptionIsDecidedByTheSessionsScenarioAndRecordedAsItsOwn() async throws {
        let (server, port) = try await Self.start()
        let throttled = try Scenario.decode(jsonText: #"{"name":"throttled","rules":[{"match":{"protocols":["webPush"]},"action":{"type":"reject","reason":"TooManyRequests"}}]}"#)
        let session = try server.createSession(scenario: throttled)
        let view = try XCTUnwrap(server.session(session.id))
        let owned = try view.makeWebPushSubscription(applicationServerKey: applicationServerKey)
        let plain = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        for version in ["--http1.1", "--http2"] {
            XCTAssertEqual(try push(owned, port: port, httpVersion: version).status, 429)
            XCTAssertEqual(try push(plain, port: port, httpVersion: version).status, 201)
        }
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(session: session.id))
        XCTAssertEqual(records.map(\.deviceToken), [owned.id, owned.id])
        XCTAssertEqual(server.notifications(matching: NotificationFilter(deviceToken: plain.id)).map(\.status), [201, 201])
        XCTAssertEqual(view.webPushSubscriptionList.map(\.id), [owned.id])
        XCTAssertFalse(view.forgetWebPushSubscription(plain.id), "a session cannot touch the server's subscription")
        XCTAssertEqual(Set(server.webPushSubscriptionList.map(\.id)), [owned.id, plain.id])
        try await server.shutdown()
    }

    /// A scripted connection close over HTTP/1.1 reaches the client and the record says so.
    func testAScenarioCloseOverHTTP1ClosesTheConnectionAndIsRecorded() async throws {
        let scenario = try Scenario.decode(jsonText: #"""
        {"name": "cut", "rules": [{"name": "cut", "match": {"protocols": ["webPush"]}, "action": {"type": "closeConnection"}}]}
        """#)
        let (server, port) = try await Self.start { $0.scenario = scenario }
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        XCTAssertThrowsError(try push(subscription, port: port))
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(deviceToken: subscription.id))
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.fault, .closeConnection)
        XCTAssertNil(record.status)
    }

    /// A scripted cut inside the answer over HTTP/1.1: the client reads no answer, and the
    /// record says none went out; a cut after the whole answer records the answer.
    func testACutInsideTheHTTP1AnswerIsRecordedAsNoAnswer() async throws {
        let scenario = try Scenario.decode(jsonText: #"""
        {"name": "cut", "rules": [{"name": "cut", "match": {"protocols": ["webPush"]}, "action": {"type": "closeAfterBytes", "bytes": 10}}]}
        """#)
        let (server, port) = try await Self.start { $0.scenario = scenario }
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        XCTAssertThrowsError(try push(subscription, port: port))
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(deviceToken: subscription.id))
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.fault, .closeAfterBytes(10))
        XCTAssertNil(record.status)
        XCTAssertFalse(record.accepted)
    }

    /// The length a cut is judged against is the answer as NIO's HTTP/1.1 encoder writes it:
    /// status line, the headers sent (with content-length and connection), blank line, body.
    func testTheHTTP1AnswersWireLengthCountsItsStatusLineHeadersAndBody() throws {
        let answer = ProviderAnswer(status: 403, headers: [HTTPHeader(name: "content-type", value: "application/json")],
                                       body: Array(#"{"reason":"BadJwtToken"}"#.utf8))
        let expected = "HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: 24\r\nconnection: close\r\n\r\n"
            + #"{"reason":"BadJwtToken"}"#
        XCTAssertEqual(WebPushHTTP1Handler.wireLength(of: answer, keepAlive: false), expected.utf8.count)
    }

    /// RFC 8030 storage on the delivery model: `Topic` replaces a stored message of an offline
    /// subscription, `TTL: 0` is never stored.
    func testTopicReplacesAStoredMessageAndTTLZeroIsNotStored() async throws {
        let (server, port) = try await Self.start()
        defer { Task { try? await server.shutdown() } }
        let subscription = try server.subscribeWebPush(applicationServerKey: applicationServerKey)
        _ = try await server.setDevice(subscription.id, online: false)
        XCTAssertEqual(try push(subscription, port: port, message: "first", headers: [("TTL", "600"), ("Topic", "scores")]).status, 201)
        XCTAssertEqual(try push(subscription, port: port, message: "second", headers: [("TTL", "600"), ("Topic", "scores")]).status, 201)
        XCTAssertEqual(try push(subscription, port: port, message: "now or never", headers: [("TTL", "0")]).status, 201)
        let sent = try await server.waitForNotifications(count: 3, matching: NotificationFilter(deviceToken: subscription.id))
        await server.catchUpDelivery()
        let device = try await server.device(subscription.id)
        XCTAssertEqual(device.stored.count, 1, "\(device.stored)")
        let kept = try XCTUnwrap(device.stored.first)
        XCTAssertEqual(sent.first { $0.sequence == kept.sequence }?.webPush?.messageText, "second")
    }

    /// The control API makes subscriptions as a page gets them.
    func testTheControlAPIMakesASubscriptionShapedAsPushSubscriptionToJSON() async throws {
        let (server, port) = try await Self.start { $0.controlPort = 0 }
        defer { Task { try? await server.shutdown() } }
        let control = try XCTUnwrap(server.ports?.control)
        let created = try ControlClient(port: control).call(
            "POST", "/v1/web-push/subscriptions", body: #"{"applicationServerKey":"\#(applicationServerKey)"}"#
        )
        XCTAssertEqual(created.status, 201, created.text)
        let object = created.json
        let endpoint = try XCTUnwrap(object["endpoint"] as? String)
        XCTAssertTrue(endpoint.hasPrefix("https://127.0.0.1:\(port)/"), endpoint)
        XCTAssertTrue(object["expirationTime"] is NSNull)
        let keys = try XCTUnwrap(object["keys"] as? [String: String])
        XCTAssertEqual(try Self.bytes(base64URL: try XCTUnwrap(keys["p256dh"])).count, 65)
        let bad = try ControlClient(port: control).call("POST", "/v1/web-push/subscriptions", body: #"{"applicationServerKey":"not a key"}"#)
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.text.contains("$.applicationServerKey"), bad.text)
    }
}
