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

    /// The head keeps each field's bytes as decoded: a value that is not UTF-8 is there byte
    /// for byte (a reader comparing bytes sees what was sent), and only the string made for a
    /// reader that asks for one writes the stray byte `\xHH`.
    func testValuesAreKeptAsTheBytesDecoded() {
        var head = RequestHead()
        let name = Array("apns-topic".utf8)
        let value: [UInt8] = [0x61, 0xFF, 0x62]
        name.withUnsafeBufferPointer { name in
            value.withUnsafeBufferPointer { value in XCTAssertTrue(head.append(name: name, value: value)) }
        }
        XCTAssertEqual(head.withBytes(of: .apnsTopic) { Array($0) }, value)
        XCTAssertEqual(head[.apnsTopic], "a\\xFFb")
        XCTAssertEqual(head.fields, [HTTPHeader(name: "apns-topic", value: "a\\xFFb")])
        XCTAssertNil(head.withBytes(of: .apnsID) { Array($0) })
    }

    /// Readers that only compare or check a value read its bytes: exact, and `false` for a
    /// field not sent.
    func testAValueIsComparedByItsBytes() {
        let head = head([(":method", "POST"), ("apns-push-type", "alert"), ("apns-priority", "10")])
        XCTAssertTrue(head.value(.method, is: "POST"))
        XCTAssertFalse(head.value(.method, is: "POS"))
        XCTAssertFalse(head.value(.method, is: "POST "))
        XCTAssertFalse(self.head([(":method", "post")]).value(.method, is: "POST"))
        XCTAssertFalse(head.value(.scheme, is: ""), "a field not sent is no value, not an empty one")
        XCTAssertTrue(self.head([(":scheme", "")]).value(.scheme, is: ""))
        XCTAssertEqual(head.withBytes(of: .apnsPriority) { $0.count }, 2)
    }

    /// A value equal to a string the reader already holds is that string (its storage shared,
    /// nothing made); a different value is a new string.
    func testAValueEqualToAHeldStringIsThatString() {
        let held = "bearer " + String(repeating: "x", count: 200)
        let head = head([("authorization", held)])
        let reused = head.value(.authorization, reusing: held)
        XCTAssertEqual(reused, held)
        XCTAssertEqual(reused.flatMap(Self.storage(of:)), Self.storage(of: held), "the held string itself, not a copy")
        let other = self.head([("authorization", held + "y")]).value(.authorization, reusing: held)
        XCTAssertEqual(other, held + "y")
        XCTAssertNil(self.head([]).value(.authorization, reusing: held))
        XCTAssertEqual(head.value(.authorization, reusing: nil), held)
    }

    /// A head recycled from the one before reads its own fields, whether they repeat that
    /// one's or not; the earlier head is left as it was (the storage is shared, never written
    /// under it).
    func testARecycledHeadReadsItsOwnFieldsAndLeavesTheEarlierOneAlone() {
        let first = head([(":method", "POST"), (":path", "/3/device/aa"), ("apns-id", "1"), ("user-agent", "ua")])
        let copyOfFirst = first.fields

        var repeating = first.recycled()
        XCTAssertEqual(repeating.count, 0)
        XCTAssertNil(repeating[.method], "a recycled head starts empty")
        for field in copyOfFirst { repeating.append(field) }
        XCTAssertEqual(repeating, first)
        XCTAssertEqual(repeating.fields, copyOfFirst)

        var shorter = first.recycled()
        for field in copyOfFirst.prefix(2) { shorter.append(field) }
        XCTAssertEqual(shorter.fields, Array(copyOfFirst.prefix(2)))
        XCTAssertNil(shorter[.apnsID])
        XCTAssertFalse(shorter.contains(.apnsID))

        // Same lengths, other bytes; then other lengths.
        var differing = first.recycled()
        differing.append(HTTPHeader(name: ":method", value: "POST"))
        differing.append(HTTPHeader(name: ":path", value: "/3/device/bb"))
        differing.append(HTTPHeader(name: "apns-id", value: "22"))
        differing.append(HTTPHeader(name: "apns-id", value: "3"))
        XCTAssertEqual(differing[.path], "/3/device/bb")
        XCTAssertEqual(differing[.apnsID], "22")
        XCTAssertTrue(differing.repeated.contains(.apnsID))
        XCTAssertEqual(differing.count, 4)
        XCTAssertNotEqual(differing, first)

        XCTAssertEqual(first.fields, copyOfFirst, "the earlier head is unchanged")
        XCTAssertEqual(first[.path], "/3/device/aa")
        XCTAssertEqual(first[.apnsID], "1")
    }

    /// A head on another's storage with as many fields has that head's fields, known without
    /// comparing them; any field written (other bytes, other lengths, one more or one fewer)
    /// gives the head storage of its own, and it no longer claims them.
    func testAHeadKnowsItHasAnEarlierHeadsFieldsWhenItSharesItsStorage() {
        let fields = [(":method", "POST"), (":path", "/3/device/aa"), ("apns-id", "1"), ("user-agent", "ua")]
        let first = head(fields)
        func recycled(_ fields: [(String, String)], from earlier: RequestHead) -> RequestHead {
            var head = earlier.recycled()
            for (name, value) in fields { head.append(HTTPHeader(name: name, value: value)) }
            return head
        }
        let again = recycled(fields, from: first)
        XCTAssertTrue(again.hasFields(of: first))
        XCTAssertTrue(first.hasFields(of: again))
        XCTAssertTrue(recycled(fields, from: again).hasFields(of: first), "two heads recycled from one storage")
        XCTAssertEqual(again.fields, first.fields)

        var otherBytes = fields
        otherBytes[1].1 = "/3/device/bb"
        var otherLength = fields
        otherLength[2].1 = "12"
        for changed in [otherBytes, otherLength, Array(fields.prefix(3)), fields + [("x-more", "1")]] {
            let head = recycled(changed, from: first)
            XCTAssertFalse(head.hasFields(of: first), "\(changed)")
            XCTAssertEqual(first.fields, self.head(fields).fields, "the earlier head is unchanged")
        }
        XCTAssertFalse(head(fields).hasFields(of: first), "equal fields on storage of its own are not claimed")
    }

    /// A list made again from a head whose fields equal an earlier list's is that list (its
    /// storage shared); where some fields differ, those are made and the rest shared.
    func testAListEqualToAnEarlierOneIsThatList() {
        let earlier = [HTTPHeader(name: ":path", value: "/3/device/" + String(repeating: "a", count: 64)),
                       HTTPHeader(name: "user-agent", value: "client/1.0 (a long user agent)")]
        let same = RequestHead(earlier).fields(from: 0, reusing: earlier)
        XCTAssertEqual(same, earlier)
        XCTAssertEqual(same.withUnsafeBufferPointer { $0.baseAddress }, earlier.withUnsafeBufferPointer { $0.baseAddress })

        var changed = earlier
        changed[1].value = "client/2.0 (a long user agent)"
        let partly = RequestHead(changed).fields(from: 0, reusing: earlier)
        XCTAssertEqual(partly, changed)
        XCTAssertEqual(Self.storage(of: partly[0].value), Self.storage(of: earlier[0].value), "the equal field shares its strings")

        let trailers = RequestHead(earlier + [HTTPHeader(name: "x-trailer", value: "yes")]).fields(from: 2)
        XCTAssertEqual(trailers, [HTTPHeader(name: "x-trailer", value: "yes")])
    }

    /// Where a string's bytes are stored (equal for two strings sharing storage).
    private static func storage(of text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
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
