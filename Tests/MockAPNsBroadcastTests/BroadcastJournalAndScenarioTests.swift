import MockAPNsWire
import XCTest
@testable import MockAPNsCore
import MockAPNsJournal
@testable import MockAPNsScenario
@testable import MockAPNsBroadcast

/// Broadcast events in the journal (kinds, `channel` filter, JSON) and scenario matchers for
/// channel ids and management operations.
final class BroadcastJournalAndScenarioTests: XCTestCase {
    static let channel = "c29tZUNoYW5uZWw="
    static let teamKey = AuthenticationResult.providerToken(teamID: "TEAM123456", keyID: "KEY1234567", allowedTopics: nil)

    private func broadcast(_ channel: String) -> BroadcastRecord {
        BroadcastRecord(bundleID: "com.example.app", channelID: channel, pushType: "liveactivity", requestID: "r",
                        payload: Array(#"{"aps":{}}"#.utf8), authentication: JournalAuthentication(Self.teamKey),
                        answer: .http2(.accepted(apnsID: "A", uniqueID: "u")))
    }

    func testJournalFiltersByChannelAndWritesBothKinds() {
        let journal = Journal(options: JournalOptions(capacity: 100))
        var outcome = ChannelManagementOutcome(operation: .create, bundleID: "com.example.app", channelID: Self.channel, requestID: "r")
        outcome.storagePolicy = .noMessageStored
        outcome.response = ProviderAnswer(status: 201, headers: [], body: nil)
        journal.record(.channelOperation(ChannelOperationRecord(outcome: outcome, authentication: JournalAuthentication(Self.teamKey))), connection: 1, stream: 1)
        journal.record(.broadcast(broadcast(Self.channel)), connection: 2, stream: 1)
        journal.record(.broadcast(broadcast("b3RoZXI=")), connection: 2, stream: 3)
        journal.record(.diagnosis(code: .providerTokenNote, message: "y"), connection: 2)

        let mine = journal.events(matching: JournalEventFilter(channelID: Self.channel))
        XCTAssertEqual(mine.map(\.kind.name), ["channelOperation", "broadcast"])
        XCTAssertEqual(journal.events(matching: JournalEventFilter(kinds: ["broadcast"])).count, 2)
        XCTAssertTrue(JournalEventKind.Name.texts.contains("broadcast"))
        XCTAssertTrue(JournalEventKind.Name.texts.contains("channelOperation"))

        let operationJSON = JournalJSON.encode(mine[0])
        XCTAssertTrue(operationJSON.contains(#""type":"channelOperation","channelOperation":{"operation":"create","bundleId":"com.example.app","channelId":"c29tZUNoYW5uZWw=","requestId":"r","storagePolicy":0"#), operationJSON)
        XCTAssertTrue(operationJSON.contains(#""status":201"#), operationJSON)
        let broadcastJSON = JournalJSON.encode(mine[1])
        XCTAssertTrue(broadcastJSON.contains(#""broadcast":{"bundleId":"com.example.app","channelId":"c29tZUNoYW5uZWw=""#), broadcastJSON)
        XCTAssertTrue(broadcastJSON.contains(#""accepted":true,"status":200,"responseApnsId":"A","uniqueId":"u""#), broadcastJSON)
        XCTAssertTrue(broadcastJSON.contains(#""payload":"{\"aps\":{}}""#), broadcastJSON)
    }

    func testScenarioMatchesChannelsAndOperations() throws {
        let scenario = try Scenario.decode(jsonText: """
        {"name": "c", "rules": [
          {"name": "deletes", "match": {"channelOperations": ["delete"], "protocols": ["channelManagement"]}, "action": {"type": "reject", "reason": "InternalServerError"}},
          {"name": "channel", "match": {"channels": ["\(Self.channel)"]}, "action": {"type": "reject", "reason": "TooManyRequests"}}
        ]}
        """)
        let deletes = try XCTUnwrap(scenario.rules.first?.match)
        let channel = try XCTUnwrap(scenario.rules.last?.match)
        XCTAssertEqual(deletes.channelOperations, Set<ChannelOperation>([.delete]))
        XCTAssertEqual(channel.channels, [Self.channel])

        func management(_ method: String, _ path: String, channel: String?) -> ScenarioRequest {
            var headers = [HTTPHeader(name: ":method", value: method), HTTPHeader(name: ":path", value: path)]
            if let channel { headers.append(HTTPHeader(name: "apns-channel-id", value: channel)) }
            return ScenarioRequest(channelManagement: RequestHead(headers), body: [], authentication: Self.teamKey)
        }
        let numbers = ScenarioRequestNumbers(global: 1, connection: 1, token: 1)
        let connection = ScenarioConnection(transport: .channelManagement, index: 1)
        let delete = management("DELETE", "/1/apps/com.example.app/channels", channel: "b3RoZXI=")
        XCTAssertEqual(delete.channelOperation, .delete)
        XCTAssertTrue(deletes.matches(delete, numbers: numbers, connection: connection))
        XCTAssertFalse(deletes.matches(management("GET", "/1/apps/com.example.app/channels", channel: nil), numbers: numbers, connection: connection))
        XCTAssertFalse(channel.matches(delete, numbers: numbers, connection: connection))
        XCTAssertTrue(channel.matches(management("GET", "/1/apps/com.example.app/channels", channel: Self.channel), numbers: numbers, connection: connection))

        let broadcast = ScenarioRequest(http2: [
            HTTPHeader(name: ":path", value: "/4/broadcasts/apps/com.example.app"), HTTPHeader(name: "apns-channel-id", value: Self.channel),
        ], body: [], authentication: Self.teamKey)
        let provider = ScenarioConnection(transport: .http2, index: 1)
        XCTAssertTrue(channel.matches(broadcast, numbers: numbers, connection: provider))
        XCTAssertFalse(deletes.matches(broadcast, numbers: numbers, connection: provider), "a broadcast is no management operation")
    }

    func testScenarioDecoderNamesABadOperation() {
        XCTAssertThrowsError(try Scenario.decode(jsonText: #"{"name": "c", "rules": [{"match": {"channelOperations": ["purge"]}, "action": {"type": "accept"}}]}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.rules[0].match.channelOperations[0]"), "\(error)")
            XCTAssertTrue("\(error)".contains(#""readAll""#), "\(error)")
        }
    }
}
