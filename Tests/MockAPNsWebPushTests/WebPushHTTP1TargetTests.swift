import MockAPNsWebPush
import MockAPNsWire
import XCTest

/// RFC 9112's rules for an HTTP/1.1 request's target and Host lines, as the web push listener
/// applies them before the decider reads the path.
final class WebPushHTTP1TargetTests: XCTestCase {
    let origin = "https://127.0.0.1:2200"

    func resolve(_ target: String, _ hosts: [String] = ["127.0.0.1:2200"], requiresHost: Bool = true) -> WebPushHTTP1Target {
        WebPushHTTP1Target.resolve(target: target, hostLines: hosts, requiresHost: requiresHost, endpointOrigin: origin)
    }

    func testAnOriginFormTargetIsServedUnderItsHost() {
        XCTAssertEqual(resolve("/abc"), .served(path: "/abc", authority: "127.0.0.1:2200"))
        XCTAssertEqual(resolve("/abc", ["mockapns:2200"]), .served(path: "/abc", authority: "mockapns:2200"))
        XCTAssertEqual(resolve("/abc", [], requiresHost: false), .served(path: "/abc", authority: nil))
    }

    /// The Host lines as the head holds them, counted as NIO's decoder lists them.
    func testTheHostLinesAreReadFromTheHead() {
        let cases: [(fields: [(String, String)], lines: [String])] = [
            ([("host", "127.0.0.1:2200")], ["127.0.0.1:2200"]),
            ([("host", " push.example \t")], ["push.example"]),
            ([("host", "a.example, b.example")], ["a.example", "b.example"]),
            ([("host", "")], []),
            ([("user-agent", "x")], []),
            ([("host", "a.example"), ("content-length", "0"), ("host", "b.example, c.example")], ["a.example", "b.example", "c.example"]),
        ]
        for (fields, lines) in cases {
            let head = RequestHead([HTTPHeader(name: ":method", value: "POST")] + fields.map { HTTPHeader(name: $0.0, value: $0.1) })
            XCTAssertEqual(WebPushHTTP1Target.hostLines(of: head), lines, "\(fields)")
        }
    }

    func testTwoHostLinesOrNoneOnHTTP11AreMalformed() {
        guard case .malformed(let two) = resolve("/abc", ["127.0.0.1:2200", "evil.example"]) else { return XCTFail("two Host lines") }
        XCTAssertTrue(two.contains("2 Host lines"), two)
        guard case .malformed(let none) = resolve("/abc", []) else { return XCTFail("no Host line") }
        XCTAssertTrue(none.contains("no Host line"), none)
    }

    func testAnAbsoluteFormTargetIsServedOnlyWhenItNamesThisEndpoint() {
        XCTAssertEqual(resolve("https://127.0.0.1:2200/abc?x=1"), .served(path: "/abc?x=1", authority: "127.0.0.1:2200"))
        XCTAssertEqual(resolve("HTTPS://127.0.0.1:2200"), .served(path: "/", authority: "127.0.0.1:2200"))
        // The name the client connected with (its Host), HTTPS's default port written or not.
        XCTAssertEqual(resolve("https://Push.Example/abc", ["push.example:443"]), .served(path: "/abc", authority: "Push.Example"))
        for target in ["https://evil.example/abc", "http://127.0.0.1:2200/abc", "https://127.0.0.1:2201/abc",
                       "https://user@127.0.0.1:2200/abc", "https:///abc"] {
            guard case .misdirected(let problem) = resolve(target) else { return XCTFail(target) }
            XCTAssertTrue(problem.contains("meant for another server"), problem)
        }
    }
}
