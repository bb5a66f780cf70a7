import MockAPNs
import MockAPNsCore
import XCTest
import MockAPNsVerdicts
import MockAPNsUpstream

final class ConfigurationFileTests: XCTestCase {
    func testEveryKeyIsRead() throws {
        let text = """
        {"host": "0.0.0.0", "environment": "production", "certificateDirectory": "/etc/mock",
         "generatedIdCase": "lower", "eventLoopThreads": 3,
         "tls": {"certificateChain": "a.pem", "privateKey": "b.pem", "clientTrustRoots": "c.pem"},
         "http2": {"port": 0, "maxConcurrentStreams": 500, "idleTimeoutSeconds": 60}}
        """
        let configuration = try MockAPNsConfiguration.parse(json: text)
        XCTAssertEqual(configuration.host, "0.0.0.0")
        XCTAssertEqual(configuration.environment, .production)
        XCTAssertEqual(configuration.certificateDirectory, "/etc/mock")
        XCTAssertEqual(configuration.generatedIDCase, .lower)
        XCTAssertEqual(configuration.eventLoopThreads, 3)
        XCTAssertEqual(configuration.tls, .init(certificateChain: "a.pem", privateKey: "b.pem", clientTrustRoots: "c.pem"))
        XCTAssertEqual(configuration.http2Port, 0)
        XCTAssertEqual(configuration.http2.maxConcurrentStreams, 500)
        XCTAssertEqual(configuration.http2.idleTimeoutSeconds, 60)
    }

    func testDefaultsAreApplesWithFreePortsAndAbsentKeysKeepThem() throws {
        let configuration = try MockAPNsConfiguration.parse(json: "{}")
        XCTAssertEqual(configuration.host, "127.0.0.1")
        XCTAssertEqual(configuration.http2Port, 0, "embedded servers bind a free port")
        XCTAssertEqual(configuration.environment, .sandbox)
        XCTAssertEqual(configuration.http2.maxConcurrentStreams, 1000)
        XCTAssertNil(configuration.http2.idleTimeoutSeconds)
    }

    /// The settings this round of Apple fidelity added, each read from the file.
    func testEnvironmentsRateWindowsPayloadRulesAndBroadcastSettings() throws {
        let text = """
        {"environment": "both", "productionPorts": {"http2": 3297, "gateway": 3295, "feedback": 3296, "channelManagement": 3299},
         "registry": {"rateLimit": {"pushes": 5, "perSeconds": 0.5}},
         "validation": {"payloadRules": "refuse", "liveActivityWithCertificate": "accept"},
         "legacy": {"invalidJSONPayload": 1},
         "broadcast": {"wrongMethodReason": "BadPath", "refuseMissingRequiredHeaders": true, "topicForOtherApp": "BadTopic",
                       "unparseableBody": "accept", "unknownBodyAttribute": "accept", "allowedPriorities": [5, 10]}}
        """
        let configuration = try MockAPNsConfiguration.parse(json: text)
        XCTAssertEqual(configuration.environment, .both)
        XCTAssertEqual(configuration.environment.environments, [.sandbox, .production])
        XCTAssertEqual(configuration.productionPorts, .init(http2: 3297, gateway: 3295, feedback: 3296, channelManagement: 3299))
        XCTAssertEqual(configuration.rateLimit, RateWindow(pushes: 5, perMilliseconds: 500))
        XCTAssertEqual(configuration.validation.payloadRules, .refuse)
        XCTAssertEqual(configuration.validation.liveActivityWithCertificate, .accept)
        XCTAssertEqual(configuration.legacy.invalidJSONPayload, .refuse(.processingError))
        let broadcast = configuration.broadcast.options
        XCTAssertEqual(broadcast.wrongMethodReason, .badPath)
        XCTAssertTrue(broadcast.refusesMissingRequiredHeaders)
        XCTAssertEqual(broadcast.topicForOtherApp, .reject(.badTopic))
        XCTAssertEqual(broadcast.unparseableBody, .accept)
        XCTAssertEqual(broadcast.unknownBodyAttribute, .accept)
        XCTAssertEqual(broadcast.allowedPriorities, [.powerAware, .immediate])
        XCTAssertEqual(try MockAPNsConfiguration.parse(json: #"{"legacy": {"invalidJSONPayload": "silentClose"}}"#).legacy.invalidJSONPayload,
                       .closeSilently)
        let defaults = MockAPNsConfiguration()
        XCTAssertNil(defaults.rateLimit)
        XCTAssertEqual(defaults.validation.payloadRules, .diagnose)
        XCTAssertEqual(defaults.legacy.invalidJSONPayload, .accept)
        XCTAssertEqual(defaults.broadcast.options.allowedPriorities, [.powerFirst, .powerAware, .immediate])
    }

    func testTheUpstreamObjectIsReadAndItsMistakesNameTheirPath() throws {
        let text = """
        {"upstream": {"url": "https://[::1]:8443", "trustRoots": "ca.pem", "certificateChain": "push.pem", "privateKey": "push-key.pem",
                      "channelManagementUrl": "https://manage.example.test:2195", "connections": 4,
                      "connectTimeoutSeconds": 2.5, "requestTimeoutSeconds": 7}}
        """
        let configuration = try MockAPNsConfiguration.parse(json: text)
        XCTAssertEqual(configuration.upstream, "https://[::1]:8443")
        XCTAssertEqual(configuration.upstreamSettings.trustRoots, "ca.pem")
        XCTAssertEqual(configuration.upstreamSettings.certificateChain, "push.pem")
        XCTAssertEqual(configuration.upstreamSettings.privateKey, "push-key.pem")
        XCTAssertEqual(configuration.upstreamSettings.connections, 4)
        XCTAssertEqual(configuration.upstreamSettings.connectTimeoutSeconds, 2.5)
        XCTAssertEqual(configuration.upstreamSettings.requestTimeoutSeconds, 7)
        XCTAssertEqual(configuration.upstreamSettings.channelManagementEndpoint()?.origin, "https://manage.example.test:2195")
        XCTAssertNil(try MockAPNsConfiguration.parse(json: "{}").upstream, "no upstream mode by default")
        // Apple's hosts by name, the management API's with them.
        let sandbox = try MockAPNsConfiguration.parse(json: #"{"upstream": {"url": "sandbox"}}"#)
        XCTAssertEqual(sandbox.upstreamSettings.channelManagementEndpoint()?.origin, "https://api-manage-broadcast.sandbox.push.apple.com:2195")

        let mistakes: [(String, String)] = [
            (#"{"upstream": {"url": "http://127.0.0.1:2197"}}"#, "$.upstream.url"),
            (#"{"upstream": {"url": "api.push.apple.com"}}"#, "$.upstream.url"),
            (#"{"upstream": {"url": "sandbox", "connections": 0}}"#, "$.upstream.connections"),
            (#"{"upstream": {"url": "sandbox", "requestTimeoutSeconds": -1}}"#, "$.upstream.requestTimeoutSeconds"),
            (#"{"upstream": {"url": "sandbox", "privateKey": "k.pem"}}"#, "certificateChain and privateKey go together"),
            (#"{"upstream": {"url": "sandbox", "timeout": 3}}"#, "$.upstream.timeout"),
        ]
        for (text, expected) in mistakes {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }

    /// The journal's bound in bytes: read from the file, derived from the count when absent,
    /// and never below a mebibyte.
    func testTheJournalsByteCapacityIsReadOrFollowsTheCount() throws {
        let set = try MockAPNsConfiguration.parse(json: #"{"journal": {"capacity": 500, "capacityBytes": 67108864}}"#)
        XCTAssertEqual(set.journalCapacityBytes, 64 << 20)
        XCTAssertEqual(set.journal.options.capacityBytes, 64 << 20)
        XCTAssertEqual(set.journal.options.capacity, 500)
        let derived = try MockAPNsConfiguration.parse(json: #"{"journal": {"capacity": 1000000}}"#)
        XCTAssertNil(derived.journalCapacityBytes)
        XCTAssertEqual(derived.journal.options.capacityBytes, 1_000_000 * 1024, "1 KiB an event")
        XCTAssertEqual(try MockAPNsConfiguration.parse(json: "{}").journal.options.capacityBytes, 128 << 20)
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"journal": {"capacityBytes": 1000}}"#)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.journal.capacityBytes")
        }
    }

    func testMistakesNameTheirPath() {
        let cases: [(String, String)] = [
            (#"{"environment": "all"}"#, "$.environment"),
            (#"{"productionPorts": {"http2": -1}}"#, "$.productionPorts.http2"),
            (#"{"productionPorts": {"grpc": 1}}"#, "$.productionPorts.grpc"),
            (#"{"registry": {"rateLimit": {"pushes": 1}}}"#, "$.registry.rateLimit.perSeconds"),
            (#"{"registry": {"rateLimit": {"pushes": 1, "perSeconds": 0}}}"#, "$.registry.rateLimit.perSeconds"),
            (#"{"registry": {"limit": 1}}"#, "$.registry.limit"),
            (#"{"validation": {"payloadRules": "warn"}}"#, "$.validation.payloadRules"),
            (#"{"legacy": {"invalidJSONPayload": 10}}"#, "$.legacy.invalidJSONPayload"),
            (#"{"legacy": {"invalidJSONPayload": "drop"}}"#, "$.legacy.invalidJSONPayload"),
            (#"{"broadcast": {"topicForOtherApp": "reject"}}"#, "$.broadcast.topicForOtherApp"),
            (#"{"http2": {"port": 70000}}"#, "$.http2.port"),
            (#"{"environment": "staging"}"#, "$.environment"),
            (#"{"tls": {"cert": "x"}}"#, "$.tls.cert"),
            (#"{"hots": "x"}"#, "$.hots"),
            (#"{"http2": []}"#, "$.http2"),
        ]
        for (text, path) in cases {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertEqual((error as? JSONFileError)?.path, path, text)
            }
        }
    }

    func testUnverifiedBehaviourIsConfigurable() throws {
        let text = """
        {"validation": {"acceptUppercaseTokens": false, "minimumTokenBytes": 32, "maximumTokenBytes": 32,
                        "payloadLimit": 2048, "voipPayloadLimit": 4096, "nonObjectPayload": "BadMessageId",
                        "backgroundWithPriority10": "accept", "topicNotAllowedReason": "BadTopic",
                        "locationWithCertificateReason": "InvalidPushType", "duplicateHeaders": "appleHeaders"},
         "providerTokens": {"maximumAgeSeconds": 1800, "futureToleranceSeconds": 0,
                            "minimumUpdateIntervalSeconds": 60, "otherTeamReason": "Forbidden"}}
        """
        let configuration = try MockAPNsConfiguration.parse(json: text)
        let validation = configuration.validation
        XCTAssertFalse(validation.acceptsUppercaseDeviceTokens)
        XCTAssertEqual(validation.deviceTokenByteLengths, 32...32)
        XCTAssertEqual(validation.payloadLimit, 2048)
        XCTAssertEqual(validation.voipPayloadLimit, 4096)
        XCTAssertEqual(validation.nonObjectPayload, .reject(.badMessageId))
        XCTAssertEqual(validation.backgroundWithImmediatePriority, .accept)
        XCTAssertEqual(validation.topicNotAllowedReason, .badTopic)
        XCTAssertEqual(validation.locationPushWithCertificateReason, .invalidPushType)
        XCTAssertEqual(validation.duplicateHeaderScope, .appleHeaders)
        XCTAssertEqual(configuration.providerTokens.maximumTokenAgeSeconds, 1800)
        XCTAssertEqual(configuration.providerTokens.futureIssuedAtToleranceSeconds, 0)
        XCTAssertEqual(configuration.providerTokens.minimumTokenUpdateIntervalSeconds, 60)
        XCTAssertEqual(configuration.providerTokens.otherTeamReason, .forbidden)
    }

    func testRuleSettingMistakesNameTheirPath() {
        let cases: [(String, String, String)] = [
            (#"{"validation": {"nonObjectPayload": "reject"}}"#, "$.validation.nonObjectPayload", "expected \"accept\" or a reason name"),
            (#"{"validation": {"topicNotAllowedReason": "Nope"}}"#, "$.validation.topicNotAllowedReason", "expected one of"),
            (#"{"validation": {"minimumTokenBytes": 64, "maximumTokenBytes": 32}}"#, "$.validation.minimumTokenBytes", "larger than"),
            (#"{"providerTokens": {"maxAge": 1}}"#, "$.providerTokens.maxAge", "unknown key"),
        ]
        for (text, path, fragment) in cases {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertEqual((error as? JSONFileError)?.path, path, text)
                XCTAssertTrue((error as? JSONFileError)?.message.contains(fragment) == true, "\(text): \(error)")
            }
        }
    }

    func testAConfiguredRuleChangesWhatTheClientSees() async throws {
        let (server, ports) = try await TestServer.start { $0.validation.nonObjectPayload = .reject(.badMessageId) }
        let response = try CurlClient(port: ports.http2).send(
            path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")], body: "[1,2,3]")
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.body, #"{"reason":"BadMessageId"}"#)
        try await server.shutdown()
    }

    func testTheVerdictsSectionSetsThresholdsAndCanTurnJudgingOff() throws {
        let defaults = try MockAPNsConfiguration.parse(json: "{}")
        XCTAssertTrue(defaults.judgesProviders)
        XCTAssertEqual(defaults.verdicts, VerdictSettings())
        let configuration = try MockAPNsConfiguration.parse(json: #"{"verdicts": {"enabled": false, "minimumRetryDelayMilliseconds": 900000, "churnConnections": 3}}"#)
        XCTAssertFalse(configuration.judgesProviders)
        XCTAssertEqual(configuration.verdicts.minimumRetryDelayMilliseconds, 900_000)
        XCTAssertEqual(configuration.verdicts.churnConnections, 3)
        XCTAssertEqual(configuration.verdicts.backoffRunLength, VerdictSettings().backoffRunLength)
        for (text, path) in [
            (#"{"verdicts": {"minimumRetryDelay": 5}}"#, "$.verdicts.minimumRetryDelay"),
            (#"{"verdicts": {"backoffGrowthFactor": 0.5}}"#, "$.verdicts.backoffGrowthFactor"),
            (#"{"verdicts": {"enabled": "yes"}}"#, "$.verdicts.enabled"),
        ] {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertEqual((error as? JSONFileError)?.path, path, text)
            }
        }
    }
}
