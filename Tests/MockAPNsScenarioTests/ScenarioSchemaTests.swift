import MockAPNsWire
import Foundation
@testable import MockAPNsCore
import XCTest
@testable import MockAPNsScenario
@testable import MockAPNsBroadcast

/// `scenarios/schema.json` says what the decoder reads: the same keys in every object, the
/// same action types and delay distributions with the same keys, and the same names in every
/// list (reasons, protocols, push types, alerts, error codes...). A new reason, action or
/// matcher that the schema does not list fails here.
final class ScenarioSchemaTests: XCTestCase {
    private static let schemaURL = ScenarioDecoderTests.examplesDirectory.appendingPathComponent("schema.json")

    private var definitions: [String: Any] = [:]
    private var schema: [String: Any] = [:]

    override func setUpWithError() throws {
        let data = try Data(contentsOf: Self.schemaURL)
        schema = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        definitions = try XCTUnwrap(schema["$defs"] as? [String: Any])
    }

    private func definition(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(definitions[name] as? [String: Any], "no $defs.\(name)", file: file, line: line)
    }

    private func propertyNames(_ object: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        Set(try XCTUnwrap(object["properties"] as? [String: Any], file: file, line: line).keys)
    }

    private func property(_ object: [String: Any], _ key: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let properties = try XCTUnwrap(object["properties"] as? [String: Any], file: file, line: line)
        return try XCTUnwrap(properties[key] as? [String: Any], "no property \(key)", file: file, line: line)
    }

    /// The strings of `{"enum": [...]}`, or of `{"items": {"enum": [...]}}` for a list.
    private func enumNames(_ object: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        if let items = object["items"] as? [String: Any] { return try enumNames(items, file: file, line: line) }
        return try XCTUnwrap(object["enum"] as? [Any], "no enum in \(object)", file: file, line: line).compactMap { $0 as? String }
    }

    func testEveryObjectTakesTheKeysTheDecoderReads() throws {
        XCTAssertEqual(try propertyNames(schema), Set(ScenarioDecoder.documentKeys))
        XCTAssertEqual(try propertyNames(definition("registry")), Set(ScenarioDecoder.registryKeys))
        XCTAssertEqual(try propertyNames(definition("connection")), Set(ScenarioDecoder.connectionKeys))
        XCTAssertEqual(try propertyNames(definition("rule")), Set(ScenarioDecoder.ruleKeys))
        XCTAssertEqual(try propertyNames(definition("match")), Set(ScenarioDecoder.matchKeys))
        for name in ["registry", "connection", "rule", "match"] {
            XCTAssertEqual(try definition(name)["additionalProperties"] as? Bool, false, name)
        }
    }

    /// Every `ScenarioMatch` property is a matcher the decoder reads (so also one the schema lists).
    func testEveryMatcherHasAKey() {
        let properties = Mirror(reflecting: ScenarioMatch()).children.compactMap(\.label)
        XCTAssertEqual(Set(properties), Set(ScenarioDecoder.matchKeys))
        XCTAssertTrue(Set(ScenarioDecoder.requestMatchKeys).isSubset(of: ScenarioDecoder.matchKeys))
    }

    func testTheReasonsAreAppleReasons() throws {
        XCTAssertEqual(try enumNames(definition("reason")), Reason.allCases.map(\.rawValue))
    }

    func testEveryActionTypeTakesTheKeysTheDecoderReads() throws {
        let alternatives = try XCTUnwrap(definition("action")["oneOf"] as? [[String: Any]])
        var documented: [String: Set<String>] = [:]
        for alternative in alternatives {
            let typeSchema = try property(alternative, "type")
            let types = try (typeSchema["const"] as? String).map { [$0] } ?? enumNames(typeSchema)
            XCTAssertEqual(alternative["additionalProperties"] as? Bool, false, "\(types)")
            for type in types {
                XCTAssertNil(documented[type], "\(type) documented twice")
                documented[type] = try propertyNames(alternative).subtracting(["type"])
            }
        }
        let decoded = Dictionary(uniqueKeysWithValues: ScenarioDecoder.ActionType.allCases.map { ($0.rawValue, Set($0.keys)) })
        XCTAssertEqual(documented, decoded)
    }

    /// One action of each type; the table must name every type, so a new action needs an example.
    func testEveryActionHasAType() {
        let examples: [ScenarioAction] = [
            .accept, .reject(.unregistered, timestamp: nil), .respond(ScenarioResponse(status: 200)),
            .refuseHandshake(TLSAlert(code: 40)), .fault(.closeConnection), .fault(.resetConnection),
            .fault(.goAway(ScenarioGoAway())), .fault(.resetStream(errorCode: 8)), .fault(.stall),
            .fault(.lowerMaxConcurrentStreams(1)), .fault(.sendGarbage(ScenarioGarbage())), .fault(.closeAfterBytes(1)),
            .fault(.shutdown), .limitRate(RateWindow(pushes: 1, perMilliseconds: 1000)), .setDevice(online: false), .setDevice(online: true),
        ]
        XCTAssertEqual(Set(examples.map(ScenarioDecoder.ActionType.init(of:))), Set(ScenarioDecoder.ActionType.allCases))
    }

    func testEveryDelayTakesTheKeysTheDecoderReads() throws {
        let alternatives = try XCTUnwrap(definition("delay")["oneOf"] as? [[String: Any]])
        var documented: [String: Set<String>] = [:]
        for alternative in alternatives {
            let distribution = try XCTUnwrap(property(alternative, "distribution")["const"] as? String)
            documented[distribution] = try propertyNames(alternative).subtracting(["distribution"])
        }
        let decoded = Dictionary(uniqueKeysWithValues: ScenarioDecoder.Distribution.allCases.map { ($0.rawValue, Set($0.keys)) })
        XCTAssertEqual(documented, decoded)
    }

    func testEveryListNamesWhatTheDecoderAccepts() throws {
        let match = try definition("match")
        XCTAssertEqual(try enumNames(property(match, "protocols")), Transport.allCases.map(\.rawValue))
        XCTAssertEqual(try enumNames(property(match, "pushTypes")), PushType.allCases.map(\.rawValue))
        XCTAssertEqual(try enumNames(property(match, "channelOperations")), ChannelOperation.allCases.map(\.rawValue))
        XCTAssertEqual(try enumNames(property(property(match, "authentication"), "kind")), AuthenticationMatch.Kind.allCases.map(\.rawValue))
        XCTAssertEqual(try enumNames(property(property(match, "requestIndex"), "scope")), RequestIndexMatch.Scope.allCases.map(\.rawValue))
        XCTAssertEqual(Set(try enumNames(property(definition("rule"), "stage"))), Set(ScenarioStage.allCases.map(\.rawValue)))

        let errorCodes = try XCTUnwrap(definition("errorCode")["oneOf"] as? [[String: Any]])
        XCTAssertEqual(try enumNames(XCTUnwrap(errorCodes.last)), HTTP2ErrorCode.names.map(\.name))

        let alternatives = try XCTUnwrap(definition("action")["oneOf"] as? [[String: Any]])
        let refuse = try XCTUnwrap(alternatives.first { ($0["properties"] as? [String: Any])?["alert"] != nil })
        let alertChoices = try XCTUnwrap(property(refuse, "alert")["oneOf"] as? [[String: Any]])
        XCTAssertEqual(try enumNames(XCTUnwrap(alertChoices.last)), TLSAlert.names.map(\.name))

        let respond = try XCTUnwrap(alternatives.first { ($0["properties"] as? [String: Any])?["legacyStatus"] != nil })
        let statuses = try XCTUnwrap(property(respond, "legacyStatus")["enum"] as? [Int])
        XCTAssertEqual(statuses, LegacyStatus.allCases.map { Int($0.rawValue) })
    }
}
