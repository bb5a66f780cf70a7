import XCTest
@testable import MockAPNsCore
@testable import MockAPNsBroadcast

final class ChannelRegistryTests: XCTestCase {
    func testChannelIDSyntax() {
        let rows: [(String, Bool)] = [
            ("c29tZUNoYW5uZWw=", true), ("dHN0LXNyY2gtY2hubA==", true), ("QUJD", true), ("ab+/", true),
            ("", false), ("abc", false), ("ab=c", false), ("a===", false), ("ab-_", false), ("ab c", false),
            (String(repeating: "QUJD", count: 16), true), (String(repeating: "QUJD", count: 17), false),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(ChannelID.isWellFormed(text, maximumLength: 64), expected, text)
        }
    }

    func testGeneratedIDsAreBase64OfTheAskedSizeAndDistinct() {
        let ids = (0..<200).map { _ in ChannelID.generate(byteCount: 16) }
        XCTAssertEqual(Set(ids).count, ids.count)
        for id in ids {
            XCTAssertEqual(id.count, 24, id)
            XCTAssertTrue(id.hasSuffix("=="), id)
            XCTAssertTrue(ChannelID.isWellFormed(id, maximumLength: 24), id)
        }
        XCTAssertEqual(ChannelID.generate(byteCount: 32).count, 44)
    }

    func testBase64MatchesKnownEncodings() {
        XCTAssertEqual(ChannelID.encode(Array("someChannel".utf8)), "c29tZUNoYW5uZWw=")
        XCTAssertEqual(ChannelID.encode(Array("tst-srch-chnl".utf8)), "dHN0LXNyY2gtY2hubA==")
        XCTAssertEqual(ChannelID.encode([0xFB, 0xFF]), "+/8=")
    }

    func testCreateInsertDeleteReset() {
        let registry = ChannelRegistry()
        guard case .success(let first) = registry.create(bundleID: "a", environment: .sandbox, storagePolicy: .noMessageStored, limit: 1, at: 7)
        else { return XCTFail("create") }
        XCTAssertEqual(first.createdAtMilliseconds, 7)
        XCTAssertEqual(registry.create(bundleID: "a", environment: .sandbox, storagePolicy: .noMessageStored, limit: 1, at: 8),
                       .failure(.limitReached(limit: 1)))
        let seeded = BroadcastChannel(id: "QUJD", bundleID: "b", environment: .production, storagePolicy: .mostRecentMessageStored)
        registry.insert(seeded)
        registry.insert(BroadcastChannel(id: "QUJD", bundleID: "b", environment: .production, storagePolicy: .noMessageStored))
        XCTAssertEqual(registry.channels(bundleID: "b", environment: .production).map(\.storagePolicy), [.noMessageStored], "insert replaces by id")
        XCTAssertEqual(registry.all.map(\.id), ["QUJD", first.id], "grouped by environment, then bundle id")
        XCTAssertNil(registry.channel(id: first.id, bundleID: "a", environment: .production))
        XCTAssertTrue(registry.delete(id: "QUJD"))
        XCTAssertFalse(registry.delete(id: "QUJD"))
        XCTAssertFalse(registry.delete(id: first.id, bundleID: "b", environment: .sandbox))
        registry.reset()
        XCTAssertTrue(registry.all.isEmpty)
    }
}
