import XCTest
@testable import MockAPNsCore

final class HTTP2RequestValidatorTests: XCTestCase {
    typealias Fixture = PushRequestFixture
    private let validator = HTTP2RequestValidator()

    func testWellFormedRequestIsNormalized() {
        let request = Fixture()
            .token(Fixture.token.uppercased())
            .setting("apns-expiration", "1700000000")
            .setting("apns-collapse-id", "score")
            .setting("authorization", "bearer abc")
            .request
        guard case .valid(let push) = validator.validate(request) else {
            return XCTFail("expected a valid request")
        }
        XCTAssertEqual(push, PushRequest(
            transport: .http2,
            deviceToken: Fixture.token,
            topic: Fixture.topic,
            pushType: .alert,
            apnsID: Fixture.apnsID,
            expiration: 1_700_000_000,
            priority: .immediate,
            collapseID: "score",
            payload: Fixture.payload
        ))
    }

    /// A push to the device of the connection's previous push gets that push's token string
    /// itself, not a new one; a token that differs, has uppercase digits or is malformed is
    /// read as ever, whatever the previous one was.
    func testARepeatedTokenIsThePreviousString() {
        func token(_ fixture: Fixture, previous: String?) -> String? {
            var request = fixture.request
            request.previousDeviceToken = previous
            guard case .valid(let push) = validator.validate(request) else { return nil }
            return push.deviceToken
        }
        func storage(_ text: String) -> UnsafeRawPointer? {
            var text = text
            return text.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        // A native string of the token's bytes, not a literal: a literal's storage is static.
        let previous = String(decoding: Array(Fixture.token.utf8), as: UTF8.self)
        let repeated = token(Fixture(), previous: previous)
        XCTAssertEqual(repeated, Fixture.token)
        XCTAssertEqual(repeated.flatMap(storage), storage(previous), "the same storage: no string made")

        let fresh = token(Fixture(), previous: nil)
        XCTAssertEqual(fresh, Fixture.token)
        XCTAssertNotEqual(fresh.flatMap(storage), storage(previous))

        let other = String(repeating: "ab", count: 32)
        XCTAssertEqual(token(Fixture().token(other), previous: previous), other)
        XCTAssertEqual(token(Fixture().token(Fixture.token.uppercased()), previous: previous), Fixture.token, "normalized, as ever")

        // A malformed token stays refused, even when the previous "token" was the same text.
        var malformed = Fixture().token("zz" + Fixture.token.dropFirst(2)).request
        malformed.previousDeviceToken = "zz" + Fixture.token.dropFirst(2)
        XCTAssertEqual(validator.validate(malformed), .invalid(.badDeviceToken, apnsID: Fixture.apnsID))
    }

    func testOptionalHeadersMayAllBeAbsent() {
        let request = Fixture()
            .removing("apns-id").removing("apns-topic").removing("apns-push-type")
            .removing("apns-priority").removing(":scheme").removing(":authority")
            .request
        guard case .valid(let push) = validator.validate(request) else {
            return XCTFail("expected a valid request")
        }
        XCTAssertNil(push.apnsID)
        XCTAssertNil(push.topic)
        XCTAssertNil(push.pushType)
        XCTAssertNil(push.priority)
        XCTAssertNil(push.expiration)
    }

    func testHeadersAppleDoesNotDefineAreIgnored() {
        let request = Fixture()
            .setting("user-agent", "client/1.0")
            .setting("content-type", "application/json")
            .setting("apns-custom", "anything at all")
            .request
        XCTAssertValid(request)
    }

    /// One row per rule of the validator; each request breaks exactly one rule.
    func testEachRuleRefusesWithItsReason() {
        let longCollapseID = String(repeating: "c", count: 65)
        let rows: [(String, Fixture, Reason)] = [
            ("repeated apns-topic", Fixture().adding("apns-topic", Fixture.topic), .duplicateHeaders),
            ("repeated unknown header", Fixture().adding("x-a", "1").adding("x-a", "2"), .duplicateHeaders),
            ("repeated pseudo-header", Fixture().adding(":method", "POST"), .duplicateHeaders),
            ("apns-id without hyphens", Fixture().setting("apns-id", "123e4567e89b42d3a456426614174000"), .badMessageId),
            ("apns-id in braces", Fixture().setting("apns-id", "{123e4567-e89b-42d3-a456-426614174000}"), .badMessageId),
            ("apns-id with a non-hex digit", Fixture().setting("apns-id", "123e4567-e89b-42d3-a456-42661417400g"), .badMessageId),
            ("apns-id hyphen misplaced", Fixture().setting("apns-id", "123e456-7e89b-42d3-a456-426614174000"), .badMessageId),
            ("empty apns-id", Fixture().setting("apns-id", ""), .badMessageId),
            ("GET", Fixture().setting(":method", "GET"), .methodNotAllowed),
            ("lowercase post", Fixture().setting(":method", "post"), .methodNotAllowed),
            ("no :method", Fixture().removing(":method"), .methodNotAllowed),
            ("empty topic", Fixture().setting("apns-topic", ""), .badTopic),
            ("topic with a space", Fixture().setting("apns-topic", "com.example app"), .badTopic),
            ("topic that is only a suffix", Fixture().setting("apns-topic", ".voip").setting("apns-push-type", "voip"), .badTopic),
            ("collapse id of 65 bytes", Fixture().setting("apns-collapse-id", longCollapseID), .badCollapseId),
            ("collapse id of 33 two-byte characters", Fixture().setting("apns-collapse-id", String(repeating: "é", count: 33)), .badCollapseId),
            ("expiration with a fraction", Fixture().setting("apns-expiration", "1700000000.5"), .badExpirationDate),
            ("negative expiration", Fixture().setting("apns-expiration", "-1"), .badExpirationDate),
            ("expiration as a date", Fixture().setting("apns-expiration", "2026-01-01"), .badExpirationDate),
            ("expiration beyond 64 bits", Fixture().setting("apns-expiration", "99999999999999999999"), .badExpirationDate),
            ("empty expiration", Fixture().setting("apns-expiration", ""), .badExpirationDate),
            ("priority 0", Fixture().setting("apns-priority", "0"), .badPriority),
            ("priority 11", Fixture().setting("apns-priority", "11"), .badPriority),
            ("priority 05", Fixture().setting("apns-priority", "05"), .badPriority),
            ("priority high", Fixture().setting("apns-priority", "high"), .badPriority),
            ("unknown push type", Fixture().setting("apns-push-type", "banner"), .invalidPushType),
            ("push type in capitals", Fixture().setting("apns-push-type", "Alert"), .invalidPushType),
            ("other API version", Fixture().setting(":path", "/2/device/\(Fixture.token)"), .badPath),
            ("path without trailing slash", Fixture().setting(":path", "/3/device"), .badPath),
            ("root path", Fixture().setting(":path", "/"), .badPath),
            ("no :path", Fixture().removing(":path"), .badPath),
            ("empty token", Fixture().setting(":path", "/3/device/"), .missingDeviceToken),
            ("odd-length token", Fixture().token(String(Fixture.token.dropLast())), .badDeviceToken),
            ("31-byte token", Fixture().token(String(repeating: "ab", count: 31)), .badDeviceToken),
            ("101-byte token", Fixture().token(String(repeating: "ab", count: 101)), .badDeviceToken),
            ("token with spaces", Fixture().token("a1b2c3d4 e5f60718 293a4b5c 6d7e8f90 a1b2c3d4 e5f60718 293a4b5c 6d7e8f9"), .badDeviceToken),
            ("token in angle brackets", Fixture().token("<\(Fixture.token.dropFirst(2))>"), .badDeviceToken),
            ("token with a query string", Fixture().token("\(Fixture.token)?x=1"), .badDeviceToken),
            ("token with a trailing slash", Fixture().token("\(Fixture.token)/"), .badDeviceToken),
            ("alert to a .voip topic", Fixture().setting("apns-topic", "com.example.app.voip"), .invalidPushType),
            ("background to a .voip topic", Fixture().setting("apns-topic", "com.example.app.voip").setting("apns-push-type", "background").setting("apns-priority", "5"), .invalidPushType),
            ("voip to the bare bundle", Fixture().setting("apns-push-type", "voip"), .topicDisallowed),
            ("voip to a .complication topic", Fixture().setting("apns-push-type", "voip").setting("apns-topic", "com.example.app.complication"), .invalidPushType),
            ("background with priority 10", Fixture().setting("apns-push-type", "background"), .badPriority),
        ]
        for (name, fixture, reason) in rows {
            XCTAssertEqual(validator.validate(fixture.request).reason, reason, name)
        }
    }

    /// Every push type, sent to the topic suffix Apple pairs it with, passes.
    func testEveryPushTypeIsAcceptedWithItsOwnTopicSuffix() {
        for pushType in PushType.allCases {
            let topic = Fixture.topic + (pushType.topicSuffix ?? ".mgmt")
            let request = Fixture()
                .setting("apns-push-type", pushType.rawValue)
                .setting("apns-topic", topic)
                .setting("apns-priority", "5")
                .request
            XCTAssertValid(request, pushType.rawValue)
        }
    }

    func testAcceptedValuesAtTheEdges() {
        let rows: [(String, Fixture)] = [
            ("uppercase apns-id", Fixture().setting("apns-id", Fixture.apnsID.uppercased())),
            ("expiration 0", Fixture().setting("apns-expiration", "0")),
            ("expiration at Int64.max", Fixture().setting("apns-expiration", "9223372036854775807")),
            ("priority 1", Fixture().setting("apns-priority", "1")),
            ("priority 5", Fixture().setting("apns-priority", "5")),
            ("collapse id of 64 bytes", Fixture().setting("apns-collapse-id", String(repeating: "c", count: 64))),
            ("32-byte token", Fixture().token(String(repeating: "ab", count: 32))),
            ("100-byte token", Fixture().token(String(repeating: "ab", count: 100))),
            ("80-byte token", Fixture().token(String(repeating: "0f", count: 80))),
            ("background with priority 5", Fixture().setting("apns-push-type", "background").setting("apns-priority", "5")),
            ("background without a priority", Fixture().setting("apns-push-type", "background").removing("apns-priority")),
            ("voip-ptt topic is not a .voip topic", Fixture().setting("apns-push-type", "pushtotalk").setting("apns-topic", "com.example.app.voip-ptt")),
            ("mdm to any topic", Fixture().setting("apns-push-type", "mdm").setting("apns-topic", "com.apple.mgmt.External.1234")),
            ("no push type to a .voip topic", Fixture().removing("apns-push-type").setting("apns-topic", "com.example.app.voip")),
        ]
        for (name, fixture) in rows {
            XCTAssertValid(fixture.request, name)
        }
    }

    // MARK: - Order

    /// Pairs of faults: the documented earlier step wins.
    func testTheDocumentedOrderDecidesBetweenTwoFaults() {
        let rows: [(String, Fixture, Reason)] = [
            ("duplicate before bad apns-id", Fixture().setting("apns-id", "nope").adding("x-a", "1").adding("x-a", "1"), .duplicateHeaders),
            ("bad apns-id before method", Fixture().setting("apns-id", "nope").setting(":method", "GET"), .badMessageId),
            ("method before topic", Fixture().setting(":method", "PUT").setting("apns-topic", ""), .methodNotAllowed),
            ("topic before collapse id", Fixture().setting("apns-topic", "").setting("apns-collapse-id", String(repeating: "c", count: 65)), .badTopic),
            ("collapse id before expiration", Fixture().setting("apns-collapse-id", String(repeating: "c", count: 65)).setting("apns-expiration", "x"), .badCollapseId),
            ("expiration before priority", Fixture().setting("apns-expiration", "x").setting("apns-priority", "7"), .badExpirationDate),
            ("priority before push type", Fixture().setting("apns-priority", "7").setting("apns-push-type", "x"), .badPriority),
            ("push type before path", Fixture().setting("apns-push-type", "x").setting(":path", "/x"), .invalidPushType),
            ("path before token", Fixture().setting(":path", "/3/devices/zz"), .badPath),
            ("missing token before topic pairing", Fixture().setting(":path", "/3/device/").setting("apns-push-type", "voip"), .missingDeviceToken),
            ("token before topic pairing", Fixture().token("zz").setting("apns-push-type", "voip"), .badDeviceToken),
            ("topic pairing before background priority", Fixture().setting("apns-push-type", "background").setting("apns-topic", "com.example.app.voip"), .invalidPushType),
            ("bad apns-id before everything but duplicates", Fixture().setting("apns-id", "x").setting(":method", "GET").setting(":path", "/"), .badMessageId),
        ]
        for (name, fixture, reason) in rows {
            XCTAssertEqual(validator.validate(fixture.request).reason, reason, name)
        }
    }

    // MARK: - apns-id kept for the response

    func testRefusalKeepsAWellFormedAPNsID() {
        let result = validator.validate(Fixture().setting(":method", "GET").request)
        XCTAssertEqual(result, .invalid(.methodNotAllowed, apnsID: Fixture.apnsID))
    }

    func testRefusalDropsAMalformedOrRepeatedAPNsID() {
        XCTAssertEqual(
            validator.validate(Fixture().setting("apns-id", "nope").request),
            .invalid(.badMessageId, apnsID: nil)
        )
        XCTAssertEqual(
            validator.validate(Fixture().adding("apns-id", Fixture.apnsID).request),
            .invalid(.duplicateHeaders, apnsID: nil)
        )
        XCTAssertEqual(
            validator.validate(Fixture().adding("x-a", "1").adding("x-a", "1").request),
            .invalid(.duplicateHeaders, apnsID: Fixture.apnsID)
        )
    }

    // MARK: - Options

    func testOptionsChangeTheUnverifiedRules() {
        let strict = ValidationOptions(
            acceptsUppercaseDeviceTokens: false,
            deviceTokenByteLengths: 32...32,
            acceptsUppercaseAPNsIDs: false,
            backgroundWithImmediatePriority: .accept,
            missingTopicSuffixReason: .invalidPushType,
            duplicateHeaderScope: .appleHeaders
        )
        let validator = HTTP2RequestValidator(options: strict)
        let rows: [(String, Fixture, Reason?)] = [
            ("uppercase token refused", Fixture().token(Fixture.token.uppercased()), .badDeviceToken),
            ("33-byte token refused", Fixture().token(String(repeating: "ab", count: 33)), .badDeviceToken),
            ("uppercase apns-id refused", Fixture().setting("apns-id", Fixture.apnsID.uppercased()), .badMessageId),
            ("background with 10 accepted", Fixture().setting("apns-push-type", "background"), nil),
            ("missing suffix reason", Fixture().setting("apns-push-type", "voip"), .invalidPushType),
            ("repeated unknown header ignored", Fixture().adding("x-a", "1").adding("x-a", "2"), nil),
            ("repeated Apple header still refused", Fixture().adding("apns-priority", "5"), .duplicateHeaders),
        ]
        for (name, fixture, reason) in rows {
            XCTAssertEqual(validator.validate(fixture.request).reason, reason, name)
        }
    }

    /// `BadDeviceToken` says nothing about what is wrong with the token; the diagnosis does,
    /// one cause per row, and a well-formed token (or none) has none.
    func testAMalformedTokenIsExplained() {
        let strict = HTTP2RequestValidator(options: ValidationOptions(acceptsUppercaseDeviceTokens: false))
        let rows: [(String, HTTP2RequestValidator, Fixture, [String])] = [
            ("odd-length token", validator, Fixture().token(String(Fixture.token.dropLast())), ["63 hex digits, an odd number"]),
            ("31-byte token", validator, Fixture().token(String(repeating: "ab", count: 31)), ["31 bytes (62 hex digits)", "32 to 100 bytes"]),
            ("101-byte token", validator, Fixture().token(String(repeating: "ab", count: 101)), ["101 bytes", "32 to 100 bytes"]),
            ("token with spaces", validator, Fixture().token("a1b2 c3d4"), [#"" " at position 5"#, "not a hex digit"]),
            ("token in angle brackets", validator, Fixture().token("<a1b2>"), [#""<" at position 1"#]),
            ("non-ASCII character", validator, Fixture().token("a1é2"), [#""\u{00E9}" at position 3"#]),
            ("uppercase refused", strict, Fixture().token(Fixture.token.uppercased()), ["upper-case", "validation.acceptUppercaseTokens"]),
        ]
        for (name, validator, fixture, needles) in rows {
            XCTAssertEqual(validator.validate(fixture.request).reason, .badDeviceToken, name)
            let diagnosis = validator.deviceTokenDiagnosis(fixture.request)
            XCTAssertEqual(diagnosis?.code, .http2MalformedDeviceToken, name)
            for needle in needles {
                XCTAssertTrue(diagnosis?.message.contains(needle) == true, "\(name): \(diagnosis?.message ?? "no diagnosis")")
            }
        }
        XCTAssertNil(validator.deviceTokenDiagnosis(Fixture().request), "a well-formed token")
        XCTAssertNil(validator.deviceTokenDiagnosis(Fixture().token("").request), "no token: MissingDeviceToken says it")
    }

    func testBackgroundPriorityReasonIsConfigurable() {
        let options = ValidationOptions(backgroundWithImmediatePriority: .reject(.invalidPushType))
        let request = Fixture().setting("apns-push-type", "background").request
        XCTAssertEqual(HTTP2RequestValidator(options: options).validate(request).reason, .invalidPushType)
    }

    // MARK: - Helpers

    private func XCTAssertValid(
        _ request: ProviderRequest, _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        if case .invalid(let reason, _) = validator.validate(request) {
            XCTFail("\(message): refused with \(reason)", file: file, line: line)
        }
    }
}

extension HTTP2Validation {
    /// The refusal reason, or `nil` when valid.
    var reason: Reason? {
        if case .invalid(let reason, _) = self { return reason }
        return nil
    }
}
