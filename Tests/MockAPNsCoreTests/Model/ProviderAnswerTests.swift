import MockAPNsCore
import MockAPNsWire
import XCTest

/// An answer relayed from another server goes out as that server wrote it, field for field;
/// its ids are held as values where they sit together in Apple's order.
final class ProviderAnswerTests: XCTestCase {
    private static let id = "6D2E4F0A-9B1C-4D3E-8F7A-0123456789AB"
    private static let unique = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"

    /// The id held as its bits (`nil`, failing the comparison, if the text were no UUID).
    private static func made(_ text: String) -> MessageID? { UUIDBits(text).map(MessageID.uuid) }

    func testARelayedAnswerSendsItsFieldsInTheOrderGiven() {
        let table: [(headers: [(String, String)], apnsID: MessageID?, uniqueID: MessageID?, idsAfter: Int)] = [
            ([], nil, nil, 0),
            ([("apns-id", Self.id)], Self.made(Self.id), nil, 0),
            ([("apns-id", Self.id), ("apns-unique-id", Self.unique)], Self.made(Self.id), Self.made(Self.unique), 0),
            ([("content-type", "application/json"), ("apns-id", Self.id)], Self.made(Self.id), nil, 1),
            ([("apns-id", Self.id), ("x-other", "1"), ("apns-unique-id", Self.unique)], Self.made(Self.id), nil, 0),
            ([("apns-unique-id", Self.unique), ("apns-id", Self.id)], nil, Self.made(Self.unique), 0),
            ([("apns-id", "not-a-uuid")], .text("not-a-uuid"), nil, 0),
            ([("apns-id", "6d2e4f0a-9b1c-4D3E-8f7a-0123456789ab")], .text("6d2e4f0a-9b1c-4D3E-8f7a-0123456789ab"), nil, 0),
            ([("x-one", "1"), ("x-two", "2")], nil, nil, 0),
        ]
        for row in table {
            let headers = row.headers.map { HTTPHeader(name: $0.0, value: $0.1) }
            let answer = ProviderAnswer(relaying: 400, headers: headers, body: [0x7B, 0x7D])
            XCTAssertEqual(answer.fields, headers, "\(row.headers): the fields as they came, in their order")
            XCTAssertEqual(answer.status, 400)
            XCTAssertEqual(answer.body, [0x7B, 0x7D])
            XCTAssertEqual(answer.apnsID, row.apnsID, "\(row.headers)")
            XCTAssertEqual(answer.uniqueID, row.uniqueID, "\(row.headers)")
            XCTAssertEqual(answer.responseHead.idsAfter, row.idsAfter, "\(row.headers)")
            if case .uuid? = answer.apnsID {
                XCTAssertEqual(answer.apnsID?.text, Self.id, "written back in the letter case it came in")
            }
        }
    }
}
