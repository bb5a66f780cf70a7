import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import XCTest

/// Every number the control API takes is range-checked: a request outside gets 400 naming
/// the field and the range, and the server lives on. The clock requests are the ones that
/// used to stop the process with an arithmetic overflow.
final class ControlAPIRangeTests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func call(_ method: String, _ path: String, body: String? = nil) throws -> ControlClient.Reply {
        try ControlClient(port: ports.control ?? 0).call(method, path, body: body)
    }

    func testTheOverflowingClockRequestsAreRefusedAndTheServerLivesOn() throws {
        let advance = try call("POST", "/v1/clock/advance", body: #"{"milliseconds": 9223372036854775807}"#)
        XCTAssertEqual(advance.status, 400)
        XCTAssertEqual(advance.json["parameter"] as? String, "$.milliseconds")
        XCTAssertTrue((advance.json["error"] as? String)?.contains("from -253402300799999 to 253402300799999") == true,
                      "\(advance.json)")

        let set = try call("PUT", "/v1/clock", body: #"{"millisecondsSince1970": -9223372036854775808}"#)
        XCTAssertEqual(set.status, 400)
        XCTAssertEqual(set.json["parameter"] as? String, "$.millisecondsSince1970")
        XCTAssertTrue((set.json["error"] as? String)?.contains("from 0 to 253402300799999") == true, "\(set.json)")

        let resume = try call("POST", "/v1/clock/resume")
        XCTAssertEqual(resume.status, 200)
        XCTAssertEqual(resume.json["fixed"] as? Bool, false)
        XCTAssertEqual(try call("GET", "/v1/health").json["status"] as? String, "ok")
    }

    func testTheClockStopsAtTheEndsOfItsRangeAndShowsSaneDates() throws {
        _ = try call("PUT", "/v1/clock", body: #"{"time": "9999-12-31T23:59:00Z"}"#)
        let far = try call("POST", "/v1/clock/advance", body: #"{"milliseconds": 253402300799999}"#)
        XCTAssertEqual(far.status, 200)
        XCTAssertEqual(far.json["millisecondsSince1970"] as? Int, 253_402_300_799_999)
        XCTAssertEqual(far.json["time"] as? String, "9999-12-31T23:59:59Z")
        let back = try call("POST", "/v1/clock/advance", body: #"{"milliseconds": -253402300799999}"#)
        XCTAssertEqual(back.json["millisecondsSince1970"] as? Int, 0)
        XCTAssertEqual(back.json["time"] as? String, "1970-01-01T00:00:00Z")
        let resumed = try call("POST", "/v1/clock/resume")
        XCTAssertEqual(resumed.json["fixed"] as? Bool, false)
        let shown = try call("GET", "/v1/clock")
        XCTAssertTrue((shown.json["time"] as? String)?.hasPrefix("1970-01-01") == true, "\(shown.json)")
    }

    func testEveryNumberInABodyIsRangeChecked() throws {
        let token = String(repeating: "ab", count: 32)
        let rows: [(method: String, path: String, body: String, parameter: String, range: String)] = [
            ("PUT", "/v1/clock", #"{"millisecondsSince1970": 253402300800000}"#, "$.millisecondsSince1970", "from 0 to 253402300799999"),
            ("PUT", "/v1/clock", #"{"millisecondsSince1970": 123456789012345678901234567890}"#, "$.millisecondsSince1970", "from 0 to 253402300799999"),
            ("PUT", "/v1/clock", #"{"time": "0000-01-01T00:00:00Z"}"#, "$.time", "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"),
            ("POST", "/v1/clock/advance", #"{"milliseconds": -9223372036854775808}"#, "$.milliseconds", "from -253402300799999 to 253402300799999"),
            ("POST", "/v1/registry/\(token)/unregister", #"{"since": -1}"#, "$.since", "from 0 to 253402300799999"),
            ("POST", "/v1/registry/\(token)/expire", #"{"since": 9223372036854775807}"#, "$.since", "from 0 to 253402300799999"),
            ("POST", "/v1/feedback", #"{"deviceToken": "\#(token)", "timestamp": 4294967296000}"#, "$.timestamp", "from 0 to 4294967295999"),
        ]
        for row in rows {
            let reply = try call(row.method, row.path, body: row.body)
            XCTAssertEqual(reply.status, 400, "\(row.path) \(row.body)")
            XCTAssertEqual(reply.json["parameter"] as? String, row.parameter, "\(row.path) \(row.body)")
            XCTAssertTrue((reply.json["error"] as? String)?.contains(row.range) == true, "\(row.body): \(reply.json)")
        }
        XCTAssertEqual((try call("GET", "/v1/feedback").json["feedback"] as? [Any])?.count, 0)
    }
}
