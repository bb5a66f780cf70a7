import MockAPNsControl
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTestSupport
import XCTest

/// What the control API lets in, over real sockets with curl: only the names it answers to,
/// no state change from another origin or in anything but JSON, and the bearer token from
/// other machines (`ControlAccessPolicy`; the browser's view is Tests/Interop/test_control_security.py).
final class ControlAccessTests: XCTestCase {
    private var server: MockAPNsServer?

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func start(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) async throws -> ControlClient {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            adjust(&configuration)
        }
        self.server = server
        return ControlClient(port: try XCTUnwrap(ports.control))
    }

    func testOnlyLoopbackNamesAndAddedNamesAreAnswered() async throws {
        let control = try await start { $0.control.allowedHosts = ["mockapns.test"] }
        let port = control.port
        let cases: [(host: String, status: Int)] = [
            ("localhost", 200),
            ("localhost:\(port)", 200),
            ("127.0.0.1:\(port)", 200),
            ("[::1]:\(port)", 200),
            ("mockapns.test:\(port)", 200),
            ("evil.example", 421),
            ("evil.example:\(port)", 421),
            ("127.0.0.1.evil.example:\(port)", 421),
            ("mockapns.test.evil.example", 421),
        ]
        // The API, its document and the dashboard's page and script alike.
        for path in ["/v1/health", "/v1/events", "/openapi.json", "/", "/dashboard/app.js"] {
            for (host, status) in cases {
                let reply = try control.call("GET", path, headers: ["Host: \(host)"])
                XCTAssertEqual(reply.status, status, "GET \(path) with Host: \(host)")
                if status == 421 {
                    XCTAssertEqual(reply.json["parameter"] as? String, "Host")
                    let error = try XCTUnwrap(reply.json["error"] as? String)
                    XCTAssertTrue(error.contains("--control-allowed-host NAME (config: control.allowedHosts)"), error)
                }
            }
        }
        // Without a Host header (HTTP/1.0) there is no name to check: refused.
        let result = try ProcessRunner.run("curl", ["-sS", "-0", "-H", "Host:", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)/v1/health"])
        XCTAssertEqual(result.stdout.split(separator: "\n").last, "400", result.stdout)
    }

    /// RFC 9112, section 3.2: a request carries exactly one Host header. With two, which one
    /// counts is anyone's guess (a proxy in front may have judged the other), so the request
    /// is refused, whichever names are in them; it used to be served under the first.
    func testTwoHostHeadersAreRefused() async throws {
        let control = try await start()
        for second in ["evil.example", "localhost", "127.0.0.1:\(control.port)"] {
            // The client's own Host: 127.0.0.1 comes first, this one second.
            let client = try EventStreamClient(port: control.port, path: "/v1/health", headers: ["Host": second])
            XCTAssertEqual(try client.status(), 400, "a second Host: \(second)")
            let reply = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(client.bufferedBody().utf8)) as? [String: Any])
            XCTAssertEqual(reply["parameter"] as? String, "Host")
            XCTAssertTrue((reply["error"] as? String ?? "").contains("2 Host headers"), "\(reply)")
        }
        XCTAssertEqual(try control.call("GET", "/v1/health", headers: ["Host: localhost"]).status, 200, "one is fine")
    }

    /// A target written as a whole URL (`GET http://evil.example/v1/events`, the absolute form
    /// clients use with proxies) names the host the request is for, and RFC 9112, section
    /// 3.2.2 has the server go by it rather than by Host: its name is checked as a Host
    /// header's is, 421 for a name the API does not answer to. Such requests used to be served
    /// whatever they named.
    func testATargetNamingAnotherHostIsRefusedAsSuchAHostIs() async throws {
        let control = try await start()
        let port = control.port
        let cases: [(target: String, host: String?, status: Int)] = [
            ("http://evil.example/v1/events", nil, 421),
            ("http://evil.example:\(port)/v1/health", nil, 421),
            ("HTTP://Evil.Example/v1/health?limit=1", nil, 421),
            ("https://evil.example/v1/health", nil, 421),
            ("http://127.0.0.1.evil.example:\(port)/", nil, 421),
            ("http://evil.example/v1/health", "localhost", 421),
            // User information, or no host at all: no name a browser would send.
            ("http://user@127.0.0.1:\(port)/v1/health", nil, 400),
            ("http:///v1/health", nil, 400),
            // A name the API answers to is served, the target's rather than Host's.
            ("http://127.0.0.1:\(port)/v1/health", nil, 200),
            ("http://localhost/v1/events?limit=1", nil, 200),
            ("http://[::1]:\(port)/v1/health", nil, 200),
            ("http://127.0.0.1:\(port)/v1/health", "evil.example", 200),
        ]
        for (target, host, status) in cases {
            var arguments = ["-sS", "--request-target", target, "-w", "\n%{http_code}", "http://127.0.0.1:\(port)/"]
            if let host { arguments += ["-H", "Host: \(host)"] }
            let result = try ProcessRunner.run("curl", arguments)
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.last.flatMap { Int($0) }, status, "GET \(target) with Host: \(host ?? "127.0.0.1:\(port)"): \(result.stdout)")
            let body = lines.dropLast().joined(separator: "\n")
            if status == 200 {
                XCTAssertTrue(body.hasPrefix("{") && !body.contains(#""error""#), body)
            } else {
                XCTAssertTrue(body.contains(#""parameter":"Host""#), body)
                XCTAssertFalse(body.contains(#""events""#), body)
            }
        }
    }

    /// Every answer, whatever made it (the dashboard's page and files, JSON, the event stream,
    /// a 404, each refusal), forbids framing: a page on another port could otherwise show the
    /// dashboard in an invisible frame and have a visitor click "Let it run" (the browser's
    /// view is Tests/Interop/test_control_security.py). The policy lets the page load its own
    /// script, style and API only, and nothing inline.
    func testEveryAnswerForbidsFramingAndThePageLoadsOnlyItsOwnFiles() async throws {
        let control = try await start()
        let base = "http://127.0.0.1:\(control.port)"
        let requests: [(what: String, arguments: [String], status: Int)] = [
            ("the dashboard", ["\(base)/"], 200),
            ("its script", ["\(base)/dashboard/app.js"], 200),
            ("its style", ["\(base)/dashboard/style.css"], 200),
            ("JSON", ["\(base)/v1/health"], 200),
            ("the OpenAPI document", ["\(base)/openapi.json"], 200),
            ("a path it does not have", ["\(base)/v1/nope"], 404),
            ("another method", ["-X", "DELETE", "\(base)/v1/health", "-H", "content-type: application/json"], 405),
            ("a name it does not answer to", ["-H", "Host: evil.example", "\(base)/"], 421),
            ("another origin", ["-X", "POST", "-H", "Origin: http://127.0.0.1:1", "\(base)/v1/clock/resume"], 403),
            ("a change not in JSON", ["-X", "POST", "\(base)/v1/clock/resume"], 415),
        ]
        for request in requests {
            let result = try ProcessRunner.run("curl", ["-sS", "-o", "/dev/null", "-D", "-"] + request.arguments)
            let head = Self.head(result.stdout)
            XCTAssertEqual(head.status, request.status, "\(request.what): \(result.stdout)")
            Self.assertForbidsFraming(head.fields, request.what)
        }
        // The event stream's answer too, and a request with two Host headers.
        let stream = try EventStreamClient(port: control.port, path: "/v1/events/stream")
        XCTAssertEqual(try stream.status(), 200)
        Self.assertForbidsFraming(Self.head(stream.head).fields, "the event stream")
        let twoHosts = try EventStreamClient(port: control.port, path: "/", headers: ["Host": "localhost"])
        XCTAssertEqual(try twoHosts.status(), 400)
        Self.assertForbidsFraming(Self.head(twoHosts.head).fields, "two Host headers")
    }

    private static func assertForbidsFraming(_ fields: [String: String], _ what: String, line: UInt = #line) {
        XCTAssertEqual(fields["x-frame-options"], "DENY", what, line: line)
        XCTAssertEqual(fields["x-content-type-options"], "nosniff", what, line: line)
        let policy = fields["content-security-policy"] ?? ""
        var directives: [String: [String]] = [:]
        for directive in policy.split(separator: ";") {
            let words = directive.split(separator: " ").map(String.init)
            if let name = words.first { directives[name] = Array(words.dropFirst()) }
        }
        XCTAssertEqual(directives["frame-ancestors"], ["'none'"], "\(what): \(policy)", line: line)
        XCTAssertEqual(directives["default-src"], ["'none'"], "\(what): \(policy)", line: line)
        for kind in ["script-src", "style-src", "connect-src"] {
            XCTAssertEqual(directives[kind], ["'self'"], "\(what): \(kind) in \(policy)", line: line)
        }
        XCTAssertFalse(policy.contains("unsafe"), "\(what): \(policy)", line: line)
    }

    /// A response head's status and its fields, names lowercased.
    private static func head(_ text: String) -> (status: Int, fields: [String: String]) {
        let lines = text.split(separator: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? -1
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, fields)
    }

    /// Every operation that may change state, from the OpenAPI document, tried as a page of
    /// another site (or a careless script) would send it: each is refused, and the journal,
    /// clock, registry, scenario, channels and feedback queue are as they were.
    func testNoStateChangesFromAnotherOriginOrInAnythingButJSON() async throws {
        let control = try await start { $0.clockStart = 1_767_225_600_000 }
        let ports = try XCTUnwrap(server?.ports)
        let token = Fixtures.token
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")]).status, 200)
        let before = try snapshot(control)

        let operations = try stateChangingOperations()
        XCTAssertGreaterThanOrEqual(operations.count, 16)
        let body = #"{"milliseconds": 86400000, "since": 0, "deviceToken": "\#(token)", "bundleId": "com.example.app", "name": "evil", "rules": []}"#
        let attempts: [(what: String, headers: [String], body: String?, status: Int)] = [
            ("JSON from another origin", ["Origin: http://evil.example", "content-type: application/json"], body, 403),
            ("JSON from another port", ["Origin: http://127.0.0.1:\(control.port + 1)", "content-type: application/json"], body, 403),
            ("JSON from a sandboxed page", ["Origin: null", "content-type: application/json"], body, 403),
            ("no content type, no body", ["content-type:"], nil, 415),
            ("text/plain", ["content-type: text/plain"], body, 415),
            ("a form", ["content-type: application/x-www-form-urlencoded"], "a=1", 415),
            ("multipart", ["content-type: multipart/form-data; boundary=x"], "--x--", 415),
        ]
        for (method, path) in operations {
            for attempt in attempts {
                let reply = try control.call(method, path, body: attempt.body, headers: attempt.headers)
                XCTAssertEqual(reply.status, attempt.status, "\(method) \(path) with \(attempt.what): \(reply.text)")
                let header = attempt.status == 403 ? "Origin" : "Content-Type"
                XCTAssertEqual(reply.json["parameter"] as? String, header, "\(method) \(path) with \(attempt.what)")
            }
        }
        let after = try snapshot(control)
        XCTAssertEqual(after, before)
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")]).status, 200,
                       "the token is still registered")

        // The same requests as the API's own origin, in JSON, do change things.
        let own = ["Origin: http://127.0.0.1:\(control.port)"]
        XCTAssertEqual(try control.call("POST", "/v1/clock/advance", body: #"{"milliseconds": 1000}"#, headers: own).status, 200)
        XCTAssertEqual(try control.call("POST", "/v1/reset", headers: own).status, 200)
        XCTAssertEqual(try control.call("POST", "/v1/clock/resume").status, 200, "a bodiless JSON POST without Origin (curl, scripts)")
    }

    func testAnAddedOriginMaySendRequests() async throws {
        let tool = try XCTUnwrap(WebOrigin("http://localhost:3000"))
        let control = try await start { $0.control.allowedOrigins = [tool] }
        XCTAssertEqual(try control.call("POST", "/v1/reset", headers: ["Origin: http://localhost:3000"]).status, 200)
        XCTAssertEqual(try control.call("POST", "/v1/reset", headers: ["Origin: http://localhost:3001"]).status, 403)
    }

    /// With remote use allowed, a peer the server cannot place on loopback must send the token
    /// (in process, the router's test channel has no peer address); loopback peers need none.
    func testTheTokenIsAskedOfOtherMachinesAndNeverGivenBack() async throws {
        let control = try await start {
            $0.control.allowsNonLoopbackHost = true
            $0.controlHost = "127.0.0.1"
        }
        let server = try XCTUnwrap(server)
        let token = try XCTUnwrap(server.controlToken, "a token is generated when remote use is allowed and none is given")
        XCTAssertEqual(try control.call("GET", "/v1/health").status, 200, "a loopback peer needs no token")
        XCTAssertEqual(try control.call("POST", "/v1/reset").status, 200)

        let application = Application(router: ControlAPI(server: server).makeRouter())
        try await application.test(.router) { client in
            let cases: [(authorization: String?, status: HTTPResponse.Status)] = [
                (nil, .unauthorized),
                ("Bearer not-the-token-at-all", .unauthorized),
                ("Basic \(token.value)", .unauthorized),
                ("Bearer \(token.value)", .ok),
            ]
            for (authorization, status) in cases {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let authorization { headers[.authorization] = authorization }
                try await client.execute(uri: "/v1/reset", method: .post, headers: headers) { response in
                    XCTAssertEqual(response.status, status, authorization ?? "no Authorization")
                    let text = String(buffer: response.body)
                    XCTAssertFalse(text.contains(token.value), "an answer must not hand out the token")
                    if status == .unauthorized {
                        XCTAssertEqual(response.headers[.wwwAuthenticate], #"Bearer realm="mockapns control""#)
                        XCTAssertTrue(text.contains(#""parameter":"Authorization""#), text)
                    }
                }
            }
        }
        // Nothing the server shows holds it.
        for path in ["/v1/events?limit=1000", "/v1/ports", "/metrics", "/", "/dashboard/app.js", "/v1/scenario"] {
            XCTAssertFalse(try control.call("GET", path).text.contains(token.value), path)
        }
    }

    func testAGivenTokenIsUsedAndNoneIsMadeForLoopbackOnly() async throws {
        let given = try BearerToken("given-token-0123456789")
        var configuration = TestServer.configuration {
            $0.control.allowsNonLoopbackHost = true
            $0.control.token = given
        }
        XCTAssertEqual(MockAPNsServer(configuration: configuration).controlToken, given)
        configuration.control.allowsNonLoopbackHost = false
        configuration.control.token = nil
        XCTAssertNil(MockAPNsServer(configuration: configuration).controlToken)
    }

    // MARK: Helpers

    /// The document's operations other than GET, with their path parameters filled in.
    private func stateChangingOperations() throws -> [(method: String, path: String)] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ControlOpenAPI.document.utf8)) as? [String: Any])
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        var operations: [(String, String)] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            for method in ["post", "put", "delete", "patch"] where item[method] != nil {
                let concrete = path.replacingOccurrences(of: "{token}", with: Fixtures.token)
                    .replacingOccurrences(of: "{id}", with: "c29tZS9DaGFubmVsKw%3D%3D")
                operations.append((method.uppercased(), concrete))
            }
        }
        return operations
    }

    /// What a state change would show: journal count, clock, scenario, channels, feedback.
    private func snapshot(_ control: ControlClient) throws -> [String] {
        [
            "\(try control.call("GET", "/v1/journal").json["count"] ?? "-")",
            "\(try control.call("GET", "/v1/clock").json["millisecondsSince1970"] ?? "-")",
            "\(try control.call("GET", "/v1/scenario").json["name"] ?? "-")",
            try control.call("GET", "/v1/channels").text,
            try control.call("GET", "/v1/feedback").text,
        ]
    }
}
