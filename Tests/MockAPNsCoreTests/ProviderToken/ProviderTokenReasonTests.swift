import Crypto
import MockAPNsCore
import XCTest

private typealias SigningKey = ProviderTokenFixtures.SigningKey
private typealias JWT = ProviderTokenFixtures.JWT

/// Every reason provider-token authentication can give, one table row each, with the HTTP
/// status APNs pairs it with.
final class ProviderTokenReasonTests: XCTestCase {
    private static let now: Int64 = 1_800_000_000

    // The keys the provider holds. Team TEAM000001 has team keys for both environments and
    // for each one, plus topic keys; TEAM000002 is another team; TEAM000003 lists its bundle ids.
    private let teamKey = SigningKey("TEAMKEY001", team: "TEAM000001", .both)
    private let teamKeySecond = SigningKey("TEAMKEY002", team: "TEAM000001", .both)
    private let teamKeyProduction = SigningKey("TEAMKEY003", team: "TEAM000001", .production)
    private let teamKeySandbox = SigningKey("TEAMKEY004", team: "TEAM000001", .sandbox)
    private let topicKey = SigningKey("TOPICKEY01", team: "TEAM000001", .sandbox, .topic, topics: ["com.example.app"])
    private let topicKeyRelated = SigningKey("TOPICKEY02", team: "TEAM000001", .sandbox, .topic, topics: ["com.example.app"])
    private let topicKeyOther = SigningKey("TOPICKEY03", team: "TEAM000001", .sandbox, .topic, topics: ["com.example.other"])
    private let otherTeamKey = SigningKey("OTHERKEY01", team: "TEAM000002", .both)
    private let listingTeamKey = SigningKey("LISTKEY001", team: "TEAM000003", .both, .team, topics: ["com.example.listed"])
    /// Signs tokens but is not registered.
    private let unknownKey = SigningKey("UNKNOWN001", team: "TEAM000001")

    private static let trustingUnknownKeys: ProviderTokenPolicy = {
        var policy = ProviderTokenPolicy()
        policy.trustsUnknownKeys = true
        return policy
    }()

    private struct Request {
        var authorization: String?
        var topic: String? = "com.example.app"
    }

    private struct Row {
        var name: String
        var environment: APNsEnvironment = .sandbox
        var policy = ProviderTokenPolicy()
        /// Requests on the same connection before the one under test; each must succeed.
        var earlier: [Request] = []
        /// Seconds the clock moves between the earlier requests and the one under test.
        var advanceSeconds: Int64 = 0
        var request: Request
        /// `nil`: authenticated.
        var reason: Reason?
        var status: Int?
    }

    private func rows() -> [Row] {
        let now = Self.now
        let good = teamKey.authorization(iat: now)
        let goodToken = teamKey.token(iat: now)
        // ECDSA signatures are randomized: signing the same claims twice gives two tokens.
        let topicGood = topicKey.authorization(iat: now)
        let header = #"{"alg":"ES256","kid":"TEAMKEY001"}"#
        let claims = #"{"iss":"TEAM000001","iat":\#(now)}"#
        func signed(_ header: String, _ claims: String) -> String {
            "bearer " + JWT.sign(header: header, claims: claims, with: teamKey.privateKey)
        }
        let input = JWT.signingInput(header: header, claims: claims)
        let signature = goodToken.split(separator: ".")[2]

        return [
            // Accepted shapes.
            Row(name: "well-formed token", request: Request(authorization: good)),
            Row(name: "scheme capitalized", request: Request(authorization: "Bearer " + goodToken)),
            Row(name: "scheme in capitals, tab separator", request: Request(authorization: "BEARER\t" + goodToken)),
            Row(name: "typ JWT present", request: Request(authorization: signed(#"{"alg":"ES256","kid":"TEAMKEY001","typ":"JWT"}"#, claims))),
            Row(name: "iat as a string", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iat":"\#(now)"}"#))),
            Row(name: "extra kid claim", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iat":\#(now),"kid":"TEAMKEY001"}"#))),
            Row(name: "DER signature", request: Request(authorization: teamKey.authorization(iat: now, signature: .der))),
            Row(name: "iat 3599 s old", request: Request(authorization: teamKey.authorization(iat: now - 3599))),
            Row(name: "iat 60 s ahead (tolerance)", request: Request(authorization: teamKey.authorization(iat: now + 60))),
            Row(name: "topic key, listed bundle with .voip", request: Request(authorization: topicKey.authorization(iat: now), topic: "com.example.app.voip")),
            Row(name: "topic key, listed bundle with .push-type.liveactivity", request: Request(authorization: topicKey.authorization(iat: now), topic: "com.example.app.push-type.liveactivity")),
            Row(name: "listing team key, listed bundle", request: Request(authorization: listingTeamKey.authorization(iat: now), topic: "com.example.listed.complication")),
            Row(name: "second team key of the same team", earlier: [Request(authorization: good)], advanceSeconds: 1200,
                request: Request(authorization: teamKeySecond.authorization(iat: now + 1200))),
            Row(name: "related topic key after a topic key", earlier: [Request(authorization: topicKey.authorization(iat: now))], advanceSeconds: 1200,
                request: Request(authorization: topicKeyRelated.authorization(iat: now + 1200))),
            Row(name: "production key on a production server", environment: .production,
                request: Request(authorization: teamKeyProduction.authorization(iat: now))),

            // MissingProviderToken (403)
            Row(name: "no authorization", request: Request(authorization: nil), reason: .missingProviderToken, status: 403),
            Row(name: "empty authorization", request: Request(authorization: ""), reason: .missingProviderToken, status: 403),
            Row(name: "blank authorization", request: Request(authorization: "  "), reason: .missingProviderToken, status: 403),
            Row(name: "bearer without token", request: Request(authorization: "bearer"), reason: .missingProviderToken, status: 403),
            Row(name: "bearer and spaces", request: Request(authorization: "bearer   "), reason: .missingProviderToken, status: 403),

            // InvalidProviderToken (403): the header
            Row(name: "another scheme", request: Request(authorization: "Basic dXNlcjpwYXNz"), reason: .invalidProviderToken, status: 403),
            Row(name: "JWT without scheme", request: Request(authorization: goodToken), reason: .invalidProviderToken, status: 403),
            Row(name: "scheme glued to token", request: Request(authorization: "bearer:" + goodToken), reason: .invalidProviderToken, status: 403),
            Row(name: "two words after bearer", request: Request(authorization: good + " extra"), reason: .invalidProviderToken, status: 403),

            // MissingTopic (400)
            Row(name: "no topic", request: Request(authorization: good, topic: nil), reason: .missingTopic, status: 400),
            Row(name: "empty topic", request: Request(authorization: good, topic: ""), reason: .missingTopic, status: 400),

            // InvalidProviderToken (403): the token's shape
            Row(name: "two segments", request: Request(authorization: "bearer " + input), reason: .invalidProviderToken, status: 403),
            Row(name: "four segments", request: Request(authorization: good + ".x"), reason: .invalidProviderToken, status: 403),
            Row(name: "standard base64 characters", request: Request(authorization: "bearer a+b/." + JWT.base64URL(claims) + "." + signature), reason: .invalidProviderToken, status: 403),
            Row(name: "padded base64", request: Request(authorization: "bearer " + JWT.base64URL(header) + "==." + JWT.base64URL(claims) + "." + signature), reason: .invalidProviderToken, status: 403),
            Row(name: "header not JSON", request: Request(authorization: signed("{alg:ES256}", claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "header a JSON array", request: Request(authorization: signed(#"["ES256"]"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "claims not JSON", request: Request(authorization: signed(header, "iss=TEAM000001")), reason: .invalidProviderToken, status: 403),
            Row(name: "duplicate claim", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iss":"TEAM000001","iat":\#(now)}"#)), reason: .invalidProviderToken, status: 403),
            Row(name: "alg HS256", request: Request(authorization: signed(#"{"alg":"HS256","kid":"TEAMKEY001"}"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "alg none", request: Request(authorization: signed(#"{"alg":"none","kid":"TEAMKEY001"}"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "alg missing", request: Request(authorization: signed(#"{"kid":"TEAMKEY001"}"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "kid missing", request: Request(authorization: signed(#"{"alg":"ES256"}"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "typ not a string", request: Request(authorization: signed(#"{"alg":"ES256","kid":"TEAMKEY001","typ":1}"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "iss missing", request: Request(authorization: signed(header, #"{"iat":\#(now)}"#)), reason: .invalidProviderToken, status: 403),
            Row(name: "iat missing", request: Request(authorization: signed(header, #"{"iss":"TEAM000001"}"#)), reason: .invalidProviderToken, status: 403),
            Row(name: "iat a boolean", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iat":true}"#)), reason: .invalidProviderToken, status: 403),
            Row(name: "iat a non-numeric string", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iat":"yesterday"}"#)), reason: .invalidProviderToken, status: 403),
            Row(name: "iat beyond 64 bits", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iat":1e300}"#)), reason: .invalidProviderToken, status: 403),

            // InvalidProviderToken (403): the signature and the key
            Row(name: "unknown kid", request: Request(authorization: unknownKey.authorization(iat: now)), reason: .invalidProviderToken, status: 403),
            // Upstream mode takes unknown keys on trust (the upstream checks the signature), and judges the rest.
            Row(name: "unknown kid taken on trust", policy: Self.trustingUnknownKeys,
                request: Request(authorization: unknownKey.authorization(iat: now))),
            Row(name: "unknown kid taken on trust, token expired", policy: Self.trustingUnknownKeys,
                request: Request(authorization: unknownKey.authorization(iat: now - 3600)), reason: .expiredProviderToken, status: 403),
            Row(name: "unknown kid taken on trust, kid not an Apple key id", policy: Self.trustingUnknownKeys,
                request: Request(authorization: signed(#"{"alg":"ES256","kid":"short"}"#, claims)), reason: .invalidProviderToken, status: 403),
            Row(name: "known kid still verified when unknown keys are trusted", policy: Self.trustingUnknownKeys,
                request: Request(authorization: "bearer " + JWT.sign(header: header, claims: claims, with: otherTeamKey.privateKey)),
                reason: .invalidProviderToken, status: 403),
            Row(name: "signed by another key", request: Request(authorization: "bearer " + input + "." + teamKeySecond.token(iat: now).split(separator: ".")[2]), reason: .invalidProviderToken, status: 403),
            Row(name: "claims changed after signing", request: Request(authorization: "bearer " + JWT.base64URL(header) + "." + JWT.base64URL(#"{"iss":"TEAM000001","iat":\#(now - 1)}"#) + "." + signature), reason: .invalidProviderToken, status: 403),
            Row(name: "empty signature", request: Request(authorization: "bearer " + input + "."), reason: .invalidProviderToken, status: 403),
            Row(name: "signature of the wrong length", request: Request(authorization: "bearer " + input + "." + JWT.base64URL([UInt8](repeating: 1, count: 63))), reason: .invalidProviderToken, status: 403),
            Row(name: "iss not the key's team", request: Request(authorization: signed(header, #"{"iss":"TEAM000002","iat":\#(now)}"#)), reason: .invalidProviderToken, status: 403),

            // Time
            Row(name: "iat 61 s ahead", request: Request(authorization: teamKey.authorization(iat: now + 61)), reason: .invalidProviderToken, status: 403),
            Row(name: "iat in milliseconds", request: Request(authorization: teamKey.authorization(iat: now * 1000)), reason: .invalidProviderToken, status: 403),
            Row(name: "iat exactly an hour old", request: Request(authorization: teamKey.authorization(iat: now - 3600)), reason: .expiredProviderToken, status: 403),
            Row(name: "iat a day old", request: Request(authorization: teamKey.authorization(iat: now - 86_400)), reason: .expiredProviderToken, status: 403),
            Row(name: "iat far in the past", request: Request(authorization: signed(header, #"{"iss":"TEAM000001","iat":-9223372036854775808}"#)), reason: .expiredProviderToken, status: 403),

            // Environments
            Row(name: "production key on a sandbox server", request: Request(authorization: teamKeyProduction.authorization(iat: now)), reason: .badEnvironmentKeyIdInToken, status: 403),
            Row(name: "sandbox key on a production server", environment: .production,
                request: Request(authorization: teamKeySandbox.authorization(iat: now)), reason: .badEnvironmentKeyIdInToken, status: 403),
            Row(name: "team key of the other environment after a team key", earlier: [Request(authorization: good)], advanceSeconds: 1200,
                request: Request(authorization: teamKeyProduction.authorization(iat: now + 1200)), reason: .badEnvironmentKeyIdInToken, status: 403),

            // One team per connection
            Row(name: "another team after the first push", earlier: [Request(authorization: good)], advanceSeconds: 1200,
                request: Request(authorization: otherTeamKey.authorization(iat: now + 1200)), reason: .invalidProviderToken, status: 403),
            Row(name: "another team, reason configured to Forbidden", policy: ProviderTokenPolicy(otherTeamReason: .forbidden),
                earlier: [Request(authorization: good)], advanceSeconds: 1200,
                request: Request(authorization: otherTeamKey.authorization(iat: now + 1200)), reason: .forbidden, status: 403),

            // Key mixing
            Row(name: "topic key after a team key", earlier: [Request(authorization: good)], advanceSeconds: 1200,
                request: Request(authorization: topicKey.authorization(iat: now + 1200)), reason: .unrelatedKeyIdInToken, status: 403),
            Row(name: "team key after a topic key", earlier: [Request(authorization: topicKey.authorization(iat: now))], advanceSeconds: 1200,
                request: Request(authorization: teamKey.authorization(iat: now + 1200)), reason: .unrelatedKeyIdInToken, status: 403),
            Row(name: "unrelated topic key after a topic key", earlier: [Request(authorization: topicKey.authorization(iat: now))], advanceSeconds: 1200,
                request: Request(authorization: topicKeyOther.authorization(iat: now + 1200), topic: "com.example.other"), reason: .unrelatedKeyIdInToken, status: 403),
            Row(name: "unlisted topic after a topic key", earlier: [Request(authorization: topicGood)],
                request: Request(authorization: topicGood, topic: "com.example.other"), reason: .topicDisallowed, status: 400),
            Row(name: "same claims signed again count as a new token", earlier: [Request(authorization: topicGood)],
                request: Request(authorization: topicKey.authorization(iat: now)), reason: .tooManyProviderTokenUpdates, status: 429),

            // Topics
            Row(name: "topic key, unlisted bundle", request: Request(authorization: topicKey.authorization(iat: now), topic: "com.example.other"), reason: .topicDisallowed, status: 400),
            Row(name: "topic key, unlisted bundle with .voip", request: Request(authorization: topicKey.authorization(iat: now), topic: "com.example.other.voip"), reason: .topicDisallowed, status: 400),
            Row(name: "listing team key, unlisted bundle", request: Request(authorization: listingTeamKey.authorization(iat: now), topic: "com.example.app"), reason: .topicDisallowed, status: 400),

            // Token updates
            Row(name: "new token 19 min 59 s after the first", earlier: [Request(authorization: good)], advanceSeconds: 1199,
                request: Request(authorization: teamKey.authorization(iat: now + 1199)), reason: .tooManyProviderTokenUpdates, status: 429),
            Row(name: "new token 20 min after the first", earlier: [Request(authorization: good)], advanceSeconds: 1200,
                request: Request(authorization: teamKey.authorization(iat: now + 1200))),
            Row(name: "other key, same team, too soon", earlier: [Request(authorization: good)], advanceSeconds: 60,
                request: Request(authorization: teamKeySecond.authorization(iat: now + 60)), reason: .tooManyProviderTokenUpdates, status: 429),
            Row(name: "broken token too soon is reported as broken", earlier: [Request(authorization: good)], advanceSeconds: 60,
                request: Request(authorization: unknownKey.authorization(iat: now + 60)), reason: .invalidProviderToken, status: 403),
        ]
    }

    func testEveryRowGivesItsReason() throws {
        let keys = try [teamKey, teamKeySecond, teamKeyProduction, teamKeySandbox, topicKey, topicKeyRelated,
                        topicKeyOther, otherTeamKey, listingTeamKey].map { try $0.providerKey() }
        for row in rows() {
            let clock = ServerClock(fixedAt: Self.now * 1000)
            let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: keys), clock: clock, policy: row.policy)
            var state = ProviderTokenConnectionState()
            for (index, earlier) in row.earlier.enumerated() {
                let outcome = verifier.authenticate(authorization: earlier.authorization, topic: earlier.topic,
                                                    serverEnvironment: row.environment, state: &state)
                XCTAssertNotNil(outcome.identity, "\(row.name): earlier request \(index) should pass, got \(outcome)")
            }
            clock.advance(milliseconds: row.advanceSeconds * 1000)
            let outcome = verifier.authenticate(authorization: row.request.authorization, topic: row.request.topic,
                                                serverEnvironment: row.environment, state: &state)
            XCTAssertEqual(outcome.reason, row.reason, "\(row.name): \(outcome)")
            XCTAssertEqual(outcome.reason?.httpStatus, row.status, row.name)
        }
    }

    func testIdentityNamesTeamKeyAndIssuedAt() throws {
        let clock = ServerClock(fixedAt: Self.now * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try teamKey.providerKey()]), clock: clock)
        var state = ProviderTokenConnectionState()
        let outcome = verifier.authenticate(authorization: teamKey.authorization(iat: Self.now - 5), topic: "com.example.app",
                                            serverEnvironment: .sandbox, state: &state)
        XCTAssertEqual(outcome.identity, ProviderTokenIdentity(teamID: "TEAM000001", keyID: "TEAMKEY001",
                                                               issuedAt: Self.now - 5, allowedTopics: nil, notes: [],
                                                               servedFromCache: false))
        XCTAssertEqual(outcome.authenticationResult,
                       .providerToken(teamID: "TEAM000001", keyID: "TEAMKEY001", allowedTopics: nil))
        XCTAssertEqual(state.teamID, "TEAM000001")
        XCTAssertEqual(state.firstKeyID, "TEAMKEY001")
    }

    func testLookalikeOfTheCachedTokenIsVerifiedNotServedFromCache() throws {
        // Swift's String `==` treats KELVIN SIGN (U+212A) as equal to "K"; the cache must not.
        let clock = ServerClock(fixedAt: Self.now * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try teamKey.providerKey()]), clock: clock)
        var state = ProviderTokenConnectionState()
        var token = teamKey.token(iat: Self.now)
        while !token.contains("K") { token = teamKey.token(iat: Self.now) }
        XCTAssertNotNil(verifier.authenticate(authorization: "bearer " + token, topic: "com.example.app",
                                              serverEnvironment: .sandbox, state: &state).identity)
        let lookalike = token.replacingOccurrences(of: "K", with: "\u{212A}")
        XCTAssertEqual(lookalike, token, "the premise: String equality folds the two")
        XCTAssertEqual(verifier.authenticate(authorization: "bearer " + lookalike, topic: "com.example.app",
                                             serverEnvironment: .sandbox, state: &state).reason, .invalidProviderToken)
    }

    func testOutcomeForThePushDecider() throws {
        let clock = ServerClock(fixedAt: Self.now * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try topicKey.providerKey()]), clock: clock)
        var state = ProviderTokenConnectionState()
        let accepted = verifier.authenticate(authorization: topicKey.authorization(iat: Self.now), topic: "com.example.app.voip",
                                             serverEnvironment: .sandbox, state: &state)
        XCTAssertEqual(accepted.authenticationResult,
                       .providerToken(teamID: "TEAM000001", keyID: "TOPICKEY01", allowedTopics: ["com.example.app"]))
        let refused = verifier.authenticate(authorization: nil, topic: "com.example.app",
                                            serverEnvironment: .sandbox, state: &state)
        XCTAssertEqual(refused.authenticationResult, .rejected(.missingProviderToken))
    }

    func testLenienciesAreNoted() throws {
        let clock = ServerClock(fixedAt: Self.now * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try teamKey.providerKey()]), clock: clock)
        var state = ProviderTokenConnectionState()
        let token = JWT.sign(header: #"{"alg":"ES256","kid":"TEAMKEY001","typ":"JWT","x5u":"-"}"#,
                             claims: #"{"iss":"TEAM000001","iat":"\#(Self.now).5","kid":"TEAMKEY001"}"#,
                             with: teamKey.privateKey, .der)
        let outcome = verifier.authenticate(authorization: "bearer " + token, topic: "com.example.app",
                                            serverEnvironment: .sandbox, state: &state)
        XCTAssertEqual(outcome.identity?.issuedAt, Self.now)
        XCTAssertEqual(outcome.identity?.notes, [
            .additionalHeaderFields(["x5u"]), .issuedAtSentAsString, .issuedAtHasFraction,
            .additionalClaims(["kid"]), .signatureInDERForm,
        ])
        XCTAssertEqual(outcome.identity?.notes.first(where: { $0 == .issuedAtSentAsString })?.description, "iat sent as a string")
    }

    func testTopicCoverageIsFrozenAtTheFirstPush() throws {
        // Apple: bundle ids added to the team after the first push fail on the old connection.
        let clock = ServerClock(fixedAt: Self.now * 1000)
        let verifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(keys: [try listingTeamKey.providerKey()]), clock: clock)
        var state = ProviderTokenConnectionState()
        let authorization = listingTeamKey.authorization(iat: Self.now)
        XCTAssertNotNil(verifier.authenticate(authorization: authorization, topic: "com.example.listed",
                                              serverEnvironment: .sandbox, state: &state).identity)

        verifier.register(try ProviderKey(keyID: "LISTKEY002", teamID: "TEAM000003", environment: .both, scope: .team,
                                          topics: ["com.example.listed", "com.example.added"],
                                          publicKey: teamKeySecond.privateKey.publicKey))
        clock.advance(milliseconds: 1_200_000)
        let newer = "bearer " + JWT.sign(header: #"{"alg":"ES256","kid":"LISTKEY002"}"#,
                                         claims: #"{"iss":"TEAM000003","iat":\#(Self.now + 1200)}"#,
                                         with: teamKeySecond.privateKey)
        XCTAssertEqual(verifier.authenticate(authorization: newer, topic: "com.example.added",
                                             serverEnvironment: .sandbox, state: &state).reason, .topicDisallowed)
        var freshConnection = ProviderTokenConnectionState()
        XCTAssertEqual(verifier.authenticate(authorization: newer, topic: "com.example.listed",
                                             serverEnvironment: .sandbox, state: &state).identity?.allowedTopics,
                       ["com.example.listed"], "the first key's list still bounds the connection")
        XCTAssertNotNil(verifier.authenticate(authorization: newer, topic: "com.example.added",
                                              serverEnvironment: .sandbox, state: &freshConnection).identity)
    }
}
