import XCTest
@testable import MockAPNsCore

final class TopicRulesTests: XCTestCase {
    func testSuffixAndBundleID() {
        let rows: [(String, PushType?, String)] = [
            ("com.example.app", nil, "com.example.app"),
            ("com.example.app.voip", .voip, "com.example.app"),
            ("com.example.app.voip-ptt", .pushtotalk, "com.example.app"),
            ("com.example.app.complication", .complication, "com.example.app"),
            ("com.example.app.pushkit.fileprovider", .fileprovider, "com.example.app"),
            ("com.example.app.location-query", .location, "com.example.app"),
            ("com.example.app.push-type.liveactivity", .liveactivity, "com.example.app"),
            ("com.example.app.push-type.widgets", .widgets, "com.example.app"),
            ("com.example.app.push-type.controls", .controls, "com.example.app"),
            ("com.example.voipapp", nil, "com.example.voipapp"),
        ]
        for (topic, type, bundle) in rows {
            XCTAssertEqual(TopicRules.suffix(of: topic)?.type, type, topic)
            XCTAssertEqual(String(TopicRules.bundleID(of: topic)), bundle, topic)
        }
    }

    /// Apple's table A.4: each push type against a bare topic, its own suffix, and another's.
    func testPushTypeAgainstTopic() {
        let rows: [(PushType?, String, Reason?)] = [
            (nil, "com.x.voip", nil),
            (.alert, "com.x", nil),
            (.alert, "com.x.voip", .invalidPushType),
            (.background, "com.x", nil),
            (.background, "com.x.voip", .invalidPushType),
            (.background, "com.x.complication", .invalidPushType),
            (.voip, "com.x.voip", nil),
            (.voip, "com.x", .topicDisallowed),
            (.voip, "com.x.voip-ptt", .invalidPushType),
            (.complication, "com.x.complication", nil),
            (.complication, "com.x", .topicDisallowed),
            (.fileprovider, "com.x.pushkit.fileprovider", nil),
            (.location, "com.x.location-query", nil),
            (.location, "com.x", .topicDisallowed),
            (.liveactivity, "com.x.push-type.liveactivity", nil),
            (.liveactivity, "com.x.push-type.widgets", .invalidPushType),
            (.pushtotalk, "com.x.voip-ptt", nil),
            (.pushtotalk, "com.x.voip", .invalidPushType),
            (.widgets, "com.x.push-type.widgets", nil),
            (.controls, "com.x.push-type.controls", nil),
            (.mdm, "com.apple.mgmt.External.abc", nil),
        ]
        for (pushType, topic, reason) in rows {
            XCTAssertEqual(
                TopicRules.check(pushType: pushType, topic: topic, missingSuffixReason: .topicDisallowed),
                reason, "\(pushType?.rawValue ?? "none") -> \(topic)"
            )
        }
    }

    func testWellFormedTopics() {
        XCTAssertTrue(TopicRules.isWellFormed("com.example.app"))
        XCTAssertTrue(TopicRules.isWellFormed("web.com.example"))
        for bad in ["", " ", "com example", "com.example\t", ".voip", "com.exämple"] {
            XCTAssertFalse(TopicRules.isWellFormed(bad), bad)
        }
    }
}

final class TopicRulesVocabularyTests: XCTestCase {
    /// The scan table must list exactly the model's suffixes, longest first.
    func testSuffixTableMatchesThePushTypeVocabulary() {
        let table = TopicRules.suffixes.map { ($0.text.description, $0.type) }
        let model = PushType.suffixesLongestFirst
        XCTAssertEqual(table.map(\.0), model.map(\.suffix))
        XCTAssertEqual(table.map(\.1), model.map(\.type))
    }
}
