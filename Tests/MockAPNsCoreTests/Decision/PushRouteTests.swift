import MockAPNsWire
import XCTest
@testable import MockAPNsCore
@testable import MockAPNsScenario

/// `PushDecider.route`: the topic and push type the decision uses, which every record,
/// filter and scenario rule sees.
final class PushRouteTests: XCTestCase {
    private let decider = PushDecider()

    private func context(_ authentication: AuthenticationResult) -> DecisionContext {
        DecisionContext(environment: .sandbox, authentication: authentication)
    }

    func testRouteTable() {
        let single = AuthenticationResult.certificate(topics: [], defaultTopic: "com.example.app", environments: [.sandbox])
        let several = AuthenticationResult.certificate(
            topics: ["com.example.app", "com.example.app.voip"], defaultTopic: "com.example.app", environments: [.sandbox])
        let production = AuthenticationResult.certificate(topics: [], defaultTopic: "com.example.app", environments: [.production])
        let token = AuthenticationResult.providerToken(teamID: "T", keyID: "K", allowedTopics: nil)
        let rows: [(String, Transport, String?, PushType?, AuthenticationResult, String?, PushType?)] = [
            ("single-topic certificate, no topic", .http2, nil, .alert, single, "com.example.app", .alert),
            ("single-topic certificate, topic sent", .http2, "com.example.app.voip", nil, single, "com.example.app.voip", .voip),
            ("several topics, no topic: MissingTopic, none", .http2, nil, .alert, several, nil, .alert),
            ("several topics on the legacy gateway", .legacy, nil, nil, several, "com.example.app", nil),
            ("certificate of the other environment", .http2, nil, nil, production, nil, nil),
            ("token without topic", .http2, nil, nil, token, nil, nil),
            ("voip suffix implies voip", .http2, "com.example.app.voip", nil, token, "com.example.app.voip", .voip),
            ("sent push type wins", .http2, "com.example.app.complication", .alert, token, "com.example.app.complication", .alert),
            ("no suffix, no type", .http2, "com.example.app", nil, token, "com.example.app", nil),
            ("a push type the subject topic refuses keeps no topic", .http2, nil, .voip, single, nil, .voip),
        ]
        for (name, transport, topic, pushType, authentication, expectedTopic, expectedType) in rows {
            let request = PushRequest(transport: transport, deviceToken: "ab", topic: topic, pushType: pushType, payload: [])
            let routed = decider.route(request, context: context(authentication))
            XCTAssertEqual(routed.topic, expectedTopic, name)
            XCTAssertEqual(routed.pushType, expectedType, name)
        }
    }

    func testScenarioFactsAreRouted() {
        let single = AuthenticationResult.certificate(topics: [], defaultTopic: "com.example.app", environments: [.sandbox])
        let facts = ScenarioRequest(http2: [HTTPHeader(name: ":path", value: "/3/device/ab")], body: [], authentication: single)
            .routed(by: decider, context: context(single))
        XCTAssertEqual(facts.topic, "com.example.app")
        let typo = ScenarioRequest(http2: [HTTPHeader(name: "apns-push-type", value: "alrt")], body: [], authentication: single)
            .routed(by: decider, context: context(single))
        XCTAssertEqual(typo.pushType, "alrt", "a push type sent but not understood stays as sent")
        XCTAssertNil(typo.topic)
    }
}

/// A device path is read one way: the validator, the record of a refused request and the
/// scenario's facts take the same token from the same `:path`.
final class DevicePathTests: XCTestCase {
    func testEveryReaderTakesTheSameTokenFromAPath() {
        let token = String(repeating: "a1b2c3d4", count: 8)
        let rows: [(path: String, token: String?)] = [
            ("/3/device/\(token)", token),
            ("/3/device/", ""),
            ("/3/device/\(token)?x=1", "\(token)?x=1"),   // taken whole, and refused as BadDeviceToken
            ("/3/device/\(token)/more", "\(token)/more"),
            ("/4/broadcasts/apps/com.example.app", nil),
            ("/3/devices/\(token)", nil),
        ]
        let authentication = AuthenticationResult.providerToken(teamID: "T", keyID: "K", allowedTopics: nil)
        for row in rows {
            let headers = [HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":path", value: row.path)]
            XCTAssertEqual(HTTP2RequestValidator.deviceToken(inPath: row.path).map(String.init), row.token, row.path)
            XCTAssertEqual(PushRequest(bestEffort: ProviderRequest(headers: headers, body: [])).deviceToken, row.token ?? "", row.path)
            XCTAssertEqual(ScenarioRequest(http2: headers, body: [], authentication: authentication).deviceToken, row.token, row.path)
        }
    }
}
