import Crypto
import MockAPNsCore
import MockAPNsWebPush
import XCTest

/// The web push decision, one row per cause: the status, the reason and the diagnosis codes.
final class WebPushDeciderTests: XCTestCase {
    private typealias F = WebPushFixtures
    private let origins = [F.origin, "https://127.0.0.1:2197"]

    private struct Row {
        var name: String
        var request: (F.Setup) throws -> WebPushRequest
        var status: Int
        var reason: Reason?
        var codes: [DiagnosisCode]
        /// Words the first diagnosis's message must contain.
        var message: String? = nil
    }

    private func check(_ rows: [Row], options: WebPushOptions = WebPushOptions(), file: StaticString = #filePath, line: UInt = #line) throws {
        for row in rows {
            let setup = try F.Setup()
            let decision = setup.decider(options).decide(try row.request(setup), origins: origins)
            XCTAssertEqual(decision.status, row.status, row.name, file: file, line: line)
            XCTAssertEqual(decision.reason, row.reason, row.name, file: file, line: line)
            XCTAssertEqual(decision.diagnoses.map(\.code), row.codes, "\(row.name): \(decision.diagnoses.map(\.message))", file: file, line: line)
            if let words = row.message {
                XCTAssertTrue(decision.diagnoses.first?.message.contains(words) == true,
                              "\(row.name): \(decision.diagnoses.first?.message ?? "no diagnosis")", file: file, line: line)
            }
        }
    }

    func testEveryVAPIDMistakeIsBadJwtTokenWithItsDiagnosis() throws {
        func auth(_ make: @escaping (F.Setup) -> String) -> (F.Setup) throws -> WebPushRequest {
            { setup in try setup.request(headers: ["authorization": make(setup)]) }
        }
        func row(_ name: String, _ code: DiagnosisCode, _ message: String? = nil, _ make: @escaping (F.Setup) -> String) -> Row {
            Row(name: name, request: auth(make), status: 403, reason: .badJwtToken, codes: [code], message: message)
        }
        let otherKey = P256.Signing.PrivateKey()
        try check([
            Row(name: "missing", request: { try $0.request(headers: ["authorization": nil]) }, status: 403, reason: .badJwtToken,
                codes: [.webPushVAPIDMissing], message: "The JWT is missing"),
            Row(name: "draft scheme", request: { setup in
                    let jwt = String(setup.authorization().dropFirst("vapid t=".count).prefix { $0 != "," })
                    let key = F.base64URL(setup.vapidKey.publicKey.x963Representation)
                    return try setup.request(headers: ["authorization": "WebPush " + jwt, "crypto-key": "p256ecdsa=" + key])
                }, status: 403, reason: .badJwtToken, codes: [.webPushVAPIDMalformed], message: "draft VAPID scheme"),
            row("bearer", .webPushVAPIDMalformed, "Bearer") { "Bearer " + $0.authorization().dropFirst("vapid t=".count) },
            row("no k", .webPushVAPIDMalformed, "k=") { String($0.authorization().prefix { $0 != "," }) },
            row("JWT of two segments", .webPushVAPIDMalformed, "2 dot-separated") { setup in
                "vapid t=a.b, k=\(F.base64URL(setup.vapidKey.publicKey.x963Representation))"
            },
            row("alg HS256", .webPushVAPIDMalformed, "HS256") { setup in
                let header = F.base64URL(Array(#"{"typ":"JWT","alg":"HS256"}"#.utf8))
                let signed = setup.authorization()
                let afterHeader = signed.drop { $0 != "." }
                return "vapid t=" + header + afterHeader
            },
            row("wrong key", .webPushVAPIDWrongKey, "applicationServerKey") { $0.authorization(key: otherKey) },
            row("bad signature", .webPushVAPIDBadSignature, "wrong private key") { setup in
                // Signed by another key, sent with the subscription's k=.
                let signed = setup.authorization(key: otherKey)
                let jwt = signed.dropFirst("vapid t=".count).prefix { $0 != "," }
                return "vapid t=\(jwt), k=\(F.base64URL(setup.vapidKey.publicKey.x963Representation))"
            },
            row("aud with path", .webPushVAPIDAudience, "carries a path") { $0.authorization(audience: F.origin + "/Qabc") },
            row("aud with trailing slash", .webPushVAPIDAudience, "ends with a slash") { $0.authorization(audience: F.origin + "/") },
            row("aud of another origin", .webPushVAPIDAudience, "`https://fcm.googleapis.com`") { $0.authorization(audience: "https://fcm.googleapis.com") },
            row("exp 25 hours ahead", .webPushVAPIDExpiration, "90000 seconds (25.0 hours) ahead") {
                $0.authorization(expiration: F.nowSeconds + 90_000)
            },
            row("exp in the past", .webPushVAPIDExpiration, "60 seconds ago") { $0.authorization(expiration: F.nowSeconds - 60) },
            row("exp missing", .webPushVAPIDExpiration, "`exp` is missing") { setup in
                Self.sign(setup.vapidKey, claims: #"{"aud":"\#(F.origin)","sub":"mailto:a@example.com"}"#)
            },
            row("exp at the start of Int64", .webPushVAPIDExpiration, "long ago") { $0.authorization(expiration: .min) },
            row("exp as a string", .webPushVAPIDExpiration, "a string, not a number") { setup in
                Self.sign(setup.vapidKey, claims: #"{"aud":"\#(F.origin)","exp":"\#(F.nowSeconds + 60)","sub":"mailto:a@example.com"}"#)
            },
            row("exp in milliseconds", .webPushVAPIDExpiration, "looks like milliseconds") { $0.authorization(expiration: F.nowSeconds * 1000) },
            row("sub with a space", .webPushVAPIDSubject,
                "`sub` is `mailto: admin@example.com`: the space after `mailto:` makes it an invalid URL; Apple answers 403 BadJwtToken. Send `mailto:admin@example.com`.") {
                $0.authorization(subject: "mailto: admin@example.com")
            },
            row("sub with angle brackets", .webPushVAPIDSubject, "angle brackets") { $0.authorization(subject: "mailto:<admin@example.com>") },
            row("sub at localhost", .webPushVAPIDSubject, "special-use") { $0.authorization(subject: "mailto:admin@localhost") },
            row("sub at .local", .webPushVAPIDSubject, "special-use") { $0.authorization(subject: "mailto:me@mac.local") },
            row("sub at .test", .webPushVAPIDSubject, "special-use") { $0.authorization(subject: "https://shop.test/contact") },
            row("sub host without a dot", .webPushVAPIDSubject, "has no dot") { $0.authorization(subject: "mailto:ops@intranet") },
            row("sub http:", .webPushVAPIDSubject, "Send `https://example.com/contact`") { $0.authorization(subject: "http://example.com/contact") },
            row("sub without mailto:", .webPushVAPIDSubject, "Send `mailto:admin@example.com`") { $0.authorization(subject: "admin@example.com") },
            row("no sub", .webPushVAPIDSubject, "`sub` is missing") { $0.authorization(subject: nil) },
        ])
    }

    func testSeveralVAPIDMistakesAreAllDiagnosedAndAnsweredOnce() throws {
        let setup = try F.Setup()
        let request = try setup.request(headers: [
            "authorization": setup.authorization(audience: F.origin + "/", subject: "mailto: a@example.com", expiration: F.nowSeconds + 200_000),
        ])
        let decision = setup.decider().decide(request, origins: origins)
        XCTAssertEqual(decision.status, 403)
        XCTAssertEqual(decision.reason, .badJwtToken)
        XCTAssertEqual(decision.diagnoses.map(\.code), [.webPushVAPIDAudience, .webPushVAPIDExpiration, .webPushVAPIDSubject])
        XCTAssertEqual(decision.vapid, VAPIDClaims(subject: "mailto: a@example.com", audience: F.origin + "/",
                                                    expiration: F.nowSeconds + 200_000,
                                                    key: F.base64URL(setup.vapidKey.publicKey.x963Representation)))
        let expiration = try XCTUnwrap(decision.diagnoses.first { $0.code == .webPushVAPIDExpiration })
        XCTAssertEqual(expiration.figures, [JournalFigure("exp", F.nowSeconds + 200_000), JournalFigure("now", F.nowSeconds),
                                            JournalFigure("secondsAhead", 200_000), JournalFigure("maximumSeconds", 86_400)])
    }

    func testGoodSubjectsAndOriginsAreAccepted() throws {
        let setup = try F.Setup()
        for (subject, audience) in [
            ("mailto:admin@example.com", F.origin), ("https://shop.example.org/contact", F.origin),
            ("mailto:ops@[192.0.2.1]", "https://127.0.0.1:2197"), ("https://192.0.2.1/", F.origin),
        ] {
            let request = try setup.request(headers: ["authorization": setup.authorization(audience: audience, subject: subject)])
            let decision = setup.decider().decide(request, origins: origins)
            XCTAssertEqual(decision.status, 201, "\(subject): \(decision.diagnoses.map(\.message))")
            XCTAssertNil(decision.reason)
            XCTAssertTrue(decision.accepted)
            XCTAssertEqual(decision.diagnoses, [])
            XCTAssertEqual(decision.subscriptionID, setup.subscription.id)
            XCTAssertEqual(decision.vapid?.subject, subject)
            XCTAssertEqual(decision.message?.plaintext, Array(#"{"hello":"world"}"#.utf8))
            XCTAssertNil(decision.message?.declarative)
            XCTAssertEqual(decision.ttl, 3600)
            XCTAssertEqual(decision.urgency, "normal")
            XCTAssertEqual(decision.contentEncoding, "aes128gcm")
        }
    }

    func testMethodPathAndUnknownSubscription() throws {
        try check([
            Row(name: "GET", request: { try $0.request(method: "GET") }, status: 405, reason: .methodNotAllowed, codes: [.webPushMethodNotAllowed]),
            Row(name: "nested path", request: { try $0.request(path: "/push/\($0.subscription.id)") }, status: 404, reason: .badPath,
                codes: [.webPushBadPath]),
            Row(name: "root", request: { try $0.request(path: "/") }, status: 404, reason: .badPath, codes: [.webPushBadPath]),
            Row(name: "unknown token", request: { try $0.request(path: "/Qnever-issued") }, status: 400, reason: .badDeviceToken,
                codes: [.webPushUnknownSubscription], message: "`Qnever-issued`"),
            Row(name: "query is ignored", request: { try $0.request(path: "/\($0.subscription.id)?x=1") }, status: 201, reason: nil, codes: []),
        ])
    }

    func testHeaderRules() throws {
        var lenient = WebPushOptions()
        lenient.requiresTTL = false
        try check([
            Row(name: "no TTL", request: { try $0.request(headers: ["ttl": nil]) }, status: 400, reason: .badExpirationDate,
                codes: [.webPushTTL], message: "TTL header is missing"),
            Row(name: "negative TTL", request: { try $0.request(headers: ["ttl": "-1"]) }, status: 400, reason: .badExpirationDate,
                codes: [.webPushTTL], message: "`-1`"),
            Row(name: "TTL 0", request: { try $0.request(headers: ["ttl": "0"]) }, status: 201, reason: nil, codes: []),
            Row(name: "urgency", request: { try $0.request(headers: ["urgency": "urgent"]) }, status: 400, reason: .badPriority,
                codes: [.webPushUrgency], message: "`urgent`"),
            Row(name: "very-low", request: { try $0.request(headers: ["urgency": "very-low"]) }, status: 201, reason: nil, codes: []),
            Row(name: "long topic", request: { try $0.request(headers: ["topic": String(repeating: "a", count: 33)]) }, status: 400,
                reason: .badCollapseId, codes: [.webPushTopic], message: "33 characters"),
            Row(name: "topic alphabet", request: { try $0.request(headers: ["topic": "inbox/new"]) }, status: 400, reason: .badCollapseId,
                codes: [.webPushTopic], message: "base64url"),
            Row(name: "topic of 32", request: { try $0.request(headers: ["topic": String(repeating: "Z", count: 32)]) }, status: 201,
                reason: nil, codes: []),
            Row(name: "aesgcm", request: { try $0.request(headers: ["content-encoding": "aesgcm"]) }, status: 400, reason: .badRequestPayload,
                codes: [.webPushContentEncoding], message: "aesgcm is the draft encoding Safari does not read; send aes128gcm"),
            Row(name: "no content encoding", request: { try $0.request(headers: ["content-encoding": nil]) }, status: 400,
                reason: .badRequestPayload, codes: [.webPushContentEncoding]),
            Row(name: "empty body needs none", request: { try $0.request(headers: ["content-encoding": nil], body: []) }, status: 201,
                reason: nil, codes: []),
            Row(name: "TTL and urgency both wrong", request: { try $0.request(headers: ["ttl": "soon", "urgency": "HIGH"]) }, status: 400,
                reason: .badExpirationDate, codes: [.webPushTTL, .webPushUrgency]),
        ])
        try check([Row(name: "no TTL, not required", request: { try $0.request(headers: ["ttl": nil]) }, status: 201, reason: nil, codes: [])],
                  options: lenient)
    }

    func testPayloadSize() throws {
        let setup = try F.Setup()
        let big = try WebPushEncryptor.encrypt([UInt8](repeating: 0x41, count: 3994), p256dh: setup.subscription.p256dh, auth: setup.subscription.auth)
        XCTAssertEqual(big.count, 4097)
        let refused = setup.decider().decide(try setup.request(body: big), origins: origins)
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(refused.reason, .payloadTooLarge)
        XCTAssertEqual(refused.diagnoses.map(\.code), [.webPushPayloadTooLarge])
        XCTAssertEqual(refused.diagnoses.first?.figures, [JournalFigure("bodyBytes", 4097), JournalFigure("maximumBytes", 4096)])

        let fits = try WebPushEncryptor.encrypt([UInt8](repeating: 0x41, count: 3993), p256dh: setup.subscription.p256dh, auth: setup.subscription.auth)
        XCTAssertEqual(setup.decider().decide(try setup.request(body: fits), origins: origins).status, 201)

        // The true length counts, even when the body was stored cut short.
        var cut = try setup.request(body: Array(big.prefix(100)))
        cut.bodyLength = 100_000
        XCTAssertEqual(setup.decider().decide(cut, origins: origins).reason, .payloadTooLarge)
    }

    func testGoneSubscriptionInBothModes() throws {
        let setup = try F.Setup()
        XCTAssertTrue(setup.subscriptions.revoke(id: setup.subscription.id, at: 5_000))
        let request = try setup.request()
        let gone = setup.decider().decide(request, origins: origins)
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.reason, .unregistered)
        XCTAssertEqual(gone.diagnoses.map(\.code), [.webPushGoneSubscription])
        XCTAssertEqual(gone.diagnoses.first?.figures, [JournalFigure("sinceMilliseconds", 5_000)])

        var options = WebPushOptions()
        options.goneAnswer = .accepted
        let accepted = setup.decider(options).decide(request, origins: origins)
        XCTAssertEqual(accepted.status, 201)
        XCTAssertNil(accepted.reason)
        XCTAssertEqual(accepted.diagnoses.map(\.code), [.webPushGoneSubscription])
        XCTAssertTrue(accepted.diagnoses.first?.message.contains("nothing would reach the browser") == true)
        // The header rules still apply, the gone diagnosis kept.
        let badTTL = setup.decider(options).decide(try setup.request(headers: ["ttl": "x"]), origins: origins)
        XCTAssertEqual(badTTL.reason, .badExpirationDate)
        XCTAssertEqual(badTTL.diagnoses.map(\.code), [.webPushGoneSubscription, .webPushTTL])

        XCTAssertTrue(setup.subscriptions.expire(id: setup.subscription.id, at: 6_000))
        XCTAssertEqual(setup.decider().decide(request, origins: origins).diagnoses.first?.message.contains("expired") , true)
        XCTAssertTrue(setup.subscriptions.reactivate(id: setup.subscription.id))
        XCTAssertEqual(setup.decider().decide(request, origins: origins).status, 201)
        // VAPID comes before the gone check.
        XCTAssertTrue(setup.subscriptions.revoke(id: setup.subscription.id, at: 7_000))
        let unsigned = setup.decider().decide(try setup.request(headers: ["authorization": nil]), origins: origins)
        XCTAssertEqual(unsigned.reason, .badJwtToken)
    }

    func testUndecryptableBodies() throws {
        let setup = try F.Setup()
        let other = try WebPushSubscriptions().create(applicationServerKey: F.base64URL(setup.vapidKey.publicKey.x963Representation), now: 0)
        let body = try WebPushEncryptor.encrypt(Array("hi".utf8), p256dh: other.p256dh, auth: other.auth)
        let request = try setup.request(body: body)
        let accepted = setup.decider().decide(request, origins: origins)
        XCTAssertEqual(accepted.status, 201)
        XCTAssertNil(accepted.message)
        XCTAssertEqual(accepted.diagnoses.map(\.code), [.webPushUndecryptable])
        XCTAssertTrue(accepted.diagnoses[0].message.hasPrefix("Apple cannot read the body and accepts it; the browser will drop it: "))
        XCTAssertTrue(accepted.diagnoses[0].message.contains("another subscription's keys"))

        var options = WebPushOptions()
        options.rejectsUndecryptable = true
        let refused = setup.decider(options).decide(request, origins: origins)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.reason, .badRequestPayload)
        XCTAssertEqual(refused.diagnoses.map(\.code), [.webPushUndecryptable])

        // aesgcm-style headers are pointed out.
        let draft = setup.decider().decide(try setup.request(headers: ["encryption": "salt=abc"], body: Array(repeating: 9, count: 120)), origins: origins)
        XCTAssertEqual(draft.diagnoses.map(\.code), [.webPushUndecryptable])
        XCTAssertTrue(draft.diagnoses[0].message.contains("aesgcm"), draft.diagnoses[0].message)
    }

    func testDeclarativeWebPush() throws {
        let setup = try F.Setup()
        let valid = #"{"web_push":8030,"notification":{"title":"New mail","body":"From Ana","navigate":"https://mail.example.com/inbox","lang":"en-GB","dir":"ltr","tag":"mail","silent":false,"app_badge":"3"},"mutable":true}"#
        let decision = setup.decider().decide(try setup.request(body: setup.body(valid)), origins: origins)
        XCTAssertEqual(decision.status, 201)
        XCTAssertEqual(decision.diagnoses, [])
        XCTAssertEqual(decision.message?.declarative, DeclarativeWebPushMessage(
            title: "New mail", body: "From Ana", navigate: "https://mail.example.com/inbox", lang: "en-GB", dir: "ltr",
            tag: "mail", silent: false, appBadge: 3, mutable: true))
        XCTAssertNil(decision.message?.declarativeProblem)

        let outerBadge = #"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example.com/"},"app_badge":7}"#
        XCTAssertEqual(setup.decider().decide(try setup.request(body: setup.body(outerBadge)), origins: origins).message?.declarative?.appBadge, 7)

        let invalid: [(String, String)] = [
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"/inbox"}}"#,
             #"$.notification.navigate: expected an absolute https: URL, got "/inbox""#),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"http://a.example.com/"}}"#,
             #"$.notification.navigate: expected an absolute https: URL, got "http://a.example.com/""#),
            (#"{"web_push":8030,"notification":{"navigate":"https://a.example.com/"}}"#, "$.notification.title: expected a non-empty string, got nothing"),
            (#"{"web_push":8030,"notification":{"title":"","navigate":"https://a.example.com/"}}"#, #"$.notification.title: expected a non-empty string, got """#),
            (#"{"web_push":"8030","notification":{"title":"T","navigate":"https://a.example.com/"}}"#, #"$.web_push: expected the number 8030, got "8030""#),
            (#"{"web_push":8030}"#, "$.notification: expected an object with title and navigate, got nothing"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example.com/","silent":"no"}}"#,
             #"$.notification.silent: expected true or false, got "no""#),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example.com/"},"app_badge":-1}"#,
             "$.app_badge: expected a non-negative integer (a number or a string of digits), got -1"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example.com/"},"mutable":1}"#, "$.mutable: expected true or false, got 1"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example.com/","dir":"up"}}"#,
             #"$.notification.dir: expected "auto", "ltr" or "rtl", got "up""#),
        ]
        for (json, problem) in invalid {
            let decision = setup.decider().decide(try setup.request(body: setup.body(json)), origins: origins)
            XCTAssertEqual(decision.status, 201, json)
            XCTAssertNil(decision.message?.declarative, json)
            XCTAssertEqual(decision.message?.declarativeProblem, problem)
            XCTAssertEqual(decision.diagnoses.map(\.code), [.webPushDeclarativeInvalid], json)
            XCTAssertTrue(decision.diagnoses.first?.message.contains(problem) == true, json)
        }
    }

    /// A VAPID header with hand-written claims.
    private static func sign(_ key: P256.Signing.PrivateKey, claims: String) -> String {
        let input = F.base64URL(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8)) + "." + F.base64URL(Array(claims.utf8))
        let signature = (try? key.signature(for: Array(input.utf8)))?.rawRepresentation ?? Data()
        return "vapid t=\(input).\(F.base64URL(signature)), k=\(F.base64URL(key.publicKey.x963Representation))"
    }
}
