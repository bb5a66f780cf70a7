import MockAPNsWire
import XCTest

/// The request head: every field kept once in arrival order, the fields MockAPNs reads found
/// as they arrive, and repeats noted, so no reader walks the list again.
final class RequestHeadTests: XCTestCase {
    private func head(_ fields: [(String, String)]) -> RequestHead {
        RequestHead(fields.map { HTTPHeader(name: $0.0, value: $0.1) })
    }

    /// Every field any listener reads is recognised by its exact name, and by nothing else.
    func testEveryFieldIsRecognisedByItsNameOnly() {
        for field in RequestHead.Field.allCases {
            let name = field.name.description
            XCTAssertEqual(name.withUTF8Bytes(RequestHead.Field.init), field, name)
            // The same length with one byte changed, an upper-case letter, a longer name: none.
            var changed = Array(name.utf8)
            changed[changed.count - 1] ^= 0x01
            XCTAssertNil(String(decoding: changed, as: UTF8.self).withUTF8Bytes(RequestHead.Field.init), name)
            XCTAssertNil(name.uppercased().withUTF8Bytes(RequestHead.Field.init), name)
            XCTAssertNil((name + "x").withUTF8Bytes(RequestHead.Field.init), name)
        }
        for other in ["", "x", "user-agent", "content-length", "content-type", "apns-unique-id", ":status", "te"] {
            XCTAssertNil(other.withUTF8Bytes(RequestHead.Field.init), other)
        }
    }

    func testEachFieldReadsItsFirstValueAndTheListIsKeptAsSent() {
        let sent: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":authority", "127.0.0.1"), (":path", "/3/device/ab"),
            ("authorization", "bearer x"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
            ("apns-priority", "10"), ("apns-expiration", "0"), ("apns-id", "5E8D1C1A-1B2C-4D5E-8F90-A1B2C3D4E5F6"),
            ("apns-collapse-id", "c"), ("apns-channel-id", "ch"), ("apns-request-id", "r"), ("user-agent", "ua"),
            ("host", "h"), ("ttl", "60"), ("urgency", "high"), ("topic", "t"), ("content-encoding", "aes128gcm"),
            ("crypto-key", "k"), ("encryption", "e"),
        ]
        let head = head(sent)
        XCTAssertEqual(head.fields.map { [$0.name, $0.value] }, sent.map { [$0.0, $0.1] })
        for (name, value) in sent {
            guard let field = name.withUTF8Bytes(RequestHead.Field.init) else { continue }
            XCTAssertEqual(head[field], value, name)
            XCTAssertTrue(head.contains(field), name)
        }
        XCTAssertTrue(head.repeated.isEmpty)
        XCTAssertFalse(head.repeatsOtherField)
        XCTAssertNil(self.head([])[.path])
        XCTAssertFalse(self.head([]).contains(.path))
    }

    func testRepeatsAreNotedAndTheFirstValueWins() {
        let head = head([("apns-topic", "first"), ("user-agent", "a"), ("apns-topic", "second"), ("accept", "x")])
        XCTAssertEqual(head[.apnsTopic], "first")
        XCTAssertTrue(head.repeated.contains(.apnsTopic))
        XCTAssertFalse(head.repeated.contains(.apnsID))
        XCTAssertFalse(head.repeatsOtherField, "user-agent and accept came once each")

        let other = self.head([("user-agent", "a"), (":path", "/"), ("user-agent", "b")])
        XCTAssertTrue(other.repeated.isEmpty)
        XCTAssertTrue(other.repeatsOtherField)
    }

    /// A list longer than a field's place can say is still read right (its place is searched
    /// for past the last place a byte holds).
    func testAFieldPastTheTwoHundredAndFiftyFourthIsFound() {
        var fields = (0..<300).map { ("x-filler-\($0)", "v") }
        fields.append(("apns-topic", "late"))
        fields.append(("apns-topic", "later"))
        let head = head(fields)
        XCTAssertEqual(head[.apnsTopic], "late")
        XCTAssertTrue(head.repeated.contains(.apnsTopic))
        XCTAssertNil(head[.apnsID])
        XCTAssertEqual(head.fields.count, 302)
    }

    func testFieldSetOperations() {
        let set = RequestHead.FieldSet([.method, .apnsTopic])
        XCTAssertTrue(set.contains(.method))
        XCTAssertFalse(set.contains(.path))
        XCTAssertEqual(set.intersection(RequestHead.FieldSet([.apnsTopic, .path])), RequestHead.FieldSet([.apnsTopic]))
        XCTAssertEqual(set.subtracting(RequestHead.FieldSet([.method])), RequestHead.FieldSet([.apnsTopic]))
        XCTAssertTrue(RequestHead.FieldSet().isEmpty)
    }
}
