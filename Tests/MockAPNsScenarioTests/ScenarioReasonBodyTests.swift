import Foundation
import MockAPNsCore
import XCTest
import MockAPNsScenario

/// A scripted reason is any string the scenario author wrote; the bodies built from it are
/// valid JSON that reads back as that string.
final class ScenarioReasonBodyTests: XCTestCase {
    private static let awkwardReasons = [#"say "hi""#, #"back\slash"#, "line\nbreak\ttab\u{01}", "é 😀", #"\"},"x":1"#]

    private func reasonInBody(_ bytes: [UInt8]?, file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let data = Data(try XCTUnwrap(bytes, file: file, line: line))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any], file: file, line: line)
        XCTAssertEqual(object.count, 1, "\(object)", file: file, line: line)
        return object["reason"] as? String
    }

    func testARespondReasonMakesAValidJSONBody() throws {
        for reason in Self.awkwardReasons {
            XCTAssertEqual(try reasonInBody(ScenarioResponse(status: 500, reason: reason).bodyBytes), reason)
        }
    }

    func testAGoAwayReasonMakesValidJSONDebugData() throws {
        for reason in Self.awkwardReasons {
            XCTAssertEqual(try reasonInBody(ScenarioGoAway(reason: reason).debugBytes), reason)
        }
    }

    /// From a scenario file, as a user writes it.
    func testAReasonWithAQuoteFromAFile() throws {
        let scenario = try Scenario.decode(jsonText: #"""
            {"name": "n", "rules": [{"action": {"type": "respond", "status": 503, "reason": "Down \"for\" maintenance"}}]}
            """#)
        guard case .respond(let response) = try XCTUnwrap(scenario.rules.first?.action) else {
            return XCTFail("expected a respond action")
        }
        XCTAssertEqual(try reasonInBody(response.bodyBytes), #"Down "for" maintenance"#)
    }

    /// The development key manifest and a signed provider token escape ids the same way.
    func testQuotedEscapesForJSON() throws {
        for text in Self.awkwardReasons {
            let data = Data("[\(JSONWriter.quoted(text))]".utf8)
            XCTAssertEqual(try JSONSerialization.jsonObject(with: data) as? [String], [text])
        }
    }
}
