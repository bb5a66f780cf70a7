import MockAPNsWire
import XCTest
@testable import MockAPNsCore
@testable import MockAPNsBroadcast

/// Hostile and random requests: both broadcast cores answer each with one of Apple's statuses
/// and a reason, and never trap.
final class BroadcastMalformedInputTests: XCTestCase {

    private static let values = [
        "", " ", "=", "==", "====", "/", "?", "\u{0}", "é", "💥", "-1", "99999999999999999999999", "0", "1", "5", "10",
        "POST", "GET", "DELETE", "PUT", "liveactivity", "LiveActivity", "c29tZUNoYW5uZWw=", String(repeating: "A", count: 5000),
        "/1/apps/", "/1/apps/x/channels", "/1/apps/x/all-channels", "/1/apps//all-channels", "/1/apps/x/channels/extra",
        "/4/broadcasts/apps/", "/4/broadcasts/apps/x", "/4/broadcasts/apps/x/", "/4/broadcasts/apps/x?y", "%2F%2F",
        "0309f412-aa57-46a8-9ac6-b5aeca8c4594", "com.example.app.push-type.liveactivity",
    ]
    private static let names = [
        ":method", ":path", "apns-channel-id", "apns-request-id", "apns-id", "apns-push-type", "apns-priority",
        "apns-expiration", "apns-topic", "apns-collapse-id", "authorization", "x-other",
    ]
    private static let bodies = [
        "", "{", "}", "null", "[]", "{\"push-type\":null}", "{\"message-storage-policy\":1e999,\"push-type\":\"LiveActivity\"}",
        "{\"message-storage-policy\":-0,\"push-type\":\"LiveActivity\"}", "{\"message-storage-policy\":\"\",\"push-type\":\"LiveActivity\"}",
        String(repeating: "[", count: 10_000), "{\"push-type\":\"LiveActivity\",\"push-type\":\"LiveActivity\"}",
    ]

    func testRandomRequestsGetAppleStatusesAndNeverTrap() {
        var random = SeededRandom(seed: 16)
        let registry = ChannelRegistry()
        registry.insert(BroadcastChannel(id: "c29tZUNoYW5uZWw=", bundleID: "x", environment: .sandbox, storagePolicy: .noMessageStored))
        let management = ChannelManagementDecider(options: BroadcastOptions(channelLimit: 50), registry: registry)
        let broadcasts = BroadcastDecider(registry: registry)
        let authentications: [AuthenticationResult] = [
            .notRequired, .unauthenticated, .rejected(.invalidProviderToken),
            .providerToken(teamID: "T", keyID: "K", allowedTopics: ["x"]),
            .certificate(topics: [], defaultTopic: nil, environments: [.sandbox]),
        ]
        let statuses: Set<Int> = [200, 201, 204, 400, 403, 404, 405, 413]
        for _ in 0..<3000 {
            var headers: [HTTPHeader] = []
            for _ in 0..<Int(random.next() % 8) {
                headers.append(HTTPHeader(name: random.pick(Self.names), value: random.pick(Self.values)))
            }
            let body = random.next() % 5 == 0 ? random.bytes(Int(random.next() % 64)) : Array(random.pick(Self.bodies).utf8)
            let request = ProviderRequest(headers: headers, body: body)
            let context = DecisionContext(environment: random.pick([.sandbox, .production]), authentication: random.pick(authentications))

            let outcome = management.decide(request, requestID: management.responseRequestID(for: RequestHead(headers)), context: context)
            XCTAssertTrue(statuses.contains(outcome.answer.status), "\(headers) \(outcome)")
            XCTAssertEqual(outcome.reason == nil, outcome.answer.status < 300, "\(headers)")

            let record = broadcasts.decide(request, requestID: broadcasts.responseRequestID(for: RequestHead(headers)), context: context)
            XCTAssertTrue(statuses.contains(record.status ?? 0), "\(headers) \(record)")
        }
    }
}

private extension SeededRandom {
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next() % UInt64(choices.count))] }
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}
