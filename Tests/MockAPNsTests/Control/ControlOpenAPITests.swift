import Crypto
import MockAPNsControl
import MockAPNsTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsVerdicts

/// The control API and its OpenAPI document agree: every route is documented, every
/// documented operation is served, and a documented path asked with another method is
/// answered 405 with `Allow`.
final class ControlOpenAPITests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    /// The document's operations as "METHOD /path/{parameter}".
    private func documentedOperations() throws -> Set<String> {
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(ControlOpenAPI.document.utf8)) as? [String: Any])
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var operations: Set<String> = []
        for (path, item) in paths {
            for key in item.keys where methods.contains(key) {
                operations.insert("\(key.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// The router's operations, as "METHOD /path/{parameter}" like the document's.
    private func routeOperations() -> [String] {
        ControlAPI(server: server).makeRouter().routes.map { "\($0.method.rawValue) \($0.path)" }
    }

    func testEveryRouteIsDocumentedAndEveryDocumentedOperationIsRouted() throws {
        let documented = try documentedOperations()
        let routed = routeOperations()
        XCTAssertEqual(routed.count, Set(routed).count, "a route is registered twice")
        XCTAssertEqual(Set(routed).subtracting(documented).sorted(), [], "routes missing from the document")
        XCTAssertEqual(documented.subtracting(routed).sorted(), [], "documented operations the router lacks")
        XCTAssertGreaterThan(documented.count, 20)
    }

    /// The document lists the refusal reasons and event kinds the server knows, no more, no less.
    func testTheDocumentsEnumerationsAreTheServersOwn() throws {
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(ControlOpenAPI.document.utf8)) as? [String: Any])
        let components = try XCTUnwrap(document["components"] as? [String: Any])
        let parameters = try XCTUnwrap(components["parameters"] as? [String: [String: Any]])
        let reasonSchema = try XCTUnwrap(parameters["reason"]?["schema"] as? [String: Any])
        XCTAssertEqual(reasonSchema["enum"] as? [String], Reason.allCases.map(\.rawValue))

        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        let events = try XCTUnwrap(paths["/v1/events"]?["get"] as? [String: Any])
        let type = try XCTUnwrap((events["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "type" })
        let pattern = try XCTUnwrap((type["schema"] as? [String: Any])?["pattern"] as? String)
        let alternatives = "(" + JournalEventKind.Name.texts.joined(separator: "|") + ")"
        XCTAssertEqual(pattern, "^\(alternatives)(,\(alternatives))*$")

        XCTAssertEqual(try itemEnumeration(paths, "/v1/event-kinds", list: "kinds", field: "name"), JournalEventKind.Name.texts)
        XCTAssertEqual(try itemEnumeration(paths, "/v1/diagnosis-codes", list: "codes", field: "code"), DiagnosisCode.allCases.map(\.rawValue))
    }

    /// The `enum` of `field` in the items of the array `list` that `GET path` answers.
    private func itemEnumeration(_ paths: [String: [String: Any]], _ path: String, list: String, field: String) throws -> [String]? {
        let get = try XCTUnwrap(paths[path]?["get"] as? [String: Any])
        let ok = try XCTUnwrap((get["responses"] as? [String: Any])?["200"] as? [String: Any])
        let schema = try XCTUnwrap(((ok["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
        let array = try XCTUnwrap((schema["properties"] as? [String: Any])?[list] as? [String: Any])
        let item = try XCTUnwrap((array["items"] as? [String: Any])?["properties"] as? [String: Any])
        return (item[field] as? [String: Any])?["enum"] as? [String]
    }

    func testTheVerdictRulesAndChecksAreTheServersOwn() throws {
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(ControlOpenAPI.document.utf8)) as? [String: Any])
        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let verdict = try XCTUnwrap(schemas["Verdict"]?["properties"] as? [String: [String: Any]])
        XCTAssertEqual(verdict["rule"]?["enum"] as? [String], VerdictRule.allCases.map(\.rawValue))
        XCTAssertEqual(verdict["check"]?["enum"] as? [String], VerdictCheck.allCases.map(\.rawValue))
        let settings = try XCTUnwrap(
            ((schemas["VerdictReport"]?["properties"] as? [String: Any])?["settings"] as? [String: Any])?["properties"] as? [String: Any])
        XCTAssertEqual(Set(settings.keys), Set(VerdictSettings.keys))
    }

    func testTheServedDocumentIsTheSourceFile() throws {
        let file = try String(contentsOfFile: Fixtures.root + "/Sources/MockAPNsControl/control-api.openapi.json", encoding: .utf8)
        let served = try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(ports.control ?? 0)/openapi.json"])
        XCTAssertEqual(served.stdout, file)
    }

    /// In process (HummingbirdTesting, the router without a socket): each documented
    /// operation reaches a handler (never 404 or 405), and TRACE on each documented path is 405
    /// with the documented methods in `Allow`. `GET /v1/events/stream` never ends by design;
    /// `JournalEventStreamTests` reads it over a socket.
    func testDocumentedOperationsAreServedAndOtherMethodsGet405() async throws {
        var methodsByPath: [String: Set<String>] = [:]
        for operation in try documentedOperations() {
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            methodsByPath[parts[1], default: []].insert(parts[0])
        }
        let token = String(repeating: "ab", count: 32)
        let channel = "AAAAAAAAAAAAAAAAAAAAAA=="
        let byPath = methodsByPath.sorted { $0.key < $1.key }
        // A notification that `{id}` names, so its delivery log is found.
        server.journal.record(.notification(NotificationRecord(
            transport: .http2, deviceToken: token, payload: [], authentication: JournalAuthentication(kind: "none"),
            answer: SentAnswer(status: 200, apnsID: .text(channel), accepted: true))))
        let application = Application(router: ControlAPI(server: server).makeRouter())
        try await application.test(.router) { client in
            for (path, methods) in byPath {
                let concrete = path.replacingOccurrences(of: "{token}", with: token).replacingOccurrences(of: "{id}", with: channel)
                for method in methods.sorted() where !(method == "GET" && path == "/v1/events/stream") {
                    if path.contains("{id}") {
                        // A channel that exists (POST /v1/reset may have run), so deleting it reaches the handler.
                        try await client.execute(
                            uri: "/v1/channels", method: .post, headers: [.contentType: "application/json"],
                            body: ByteBuffer(string: #"{"bundleId": "com.example.app", "id": "\#(channel)"}"#)
                        ) { response in
                            XCTAssertEqual(response.status, .created)
                        }
                    }
                    var concrete = concrete
                    if path.hasPrefix("/v1/web-push/subscriptions/{id}") {
                        // A subscription that exists, so the route reaches the handler.
                        let key = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
                        let id = try await client.execute(
                            uri: "/v1/web-push/subscriptions", method: .post, headers: [.contentType: "application/json"],
                            body: ByteBuffer(string: #"{"applicationServerKey": "\#(key)"}"#)
                        ) { response in
                            XCTAssertEqual(response.status, .created)
                            let made = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                            return try XCTUnwrap(made?["id"] as? String)
                        }
                        concrete = path.replacingOccurrences(of: "{id}", with: id)
                    }
                    let httpMethod = try XCTUnwrap(HTTPRequest.Method(method))
                    let headers: HTTPFields = ["GET", "HEAD"].contains(method) ? [:] : [.contentType: "application/json"]
                    try await client.execute(uri: concrete, method: httpMethod, headers: headers) { response in
                        XCTAssertFalse([404, 405].contains(response.status.code), "\(method) \(path): \(response.status)")
                    }
                }
                try await client.execute(uri: concrete, method: HTTPRequest.Method("TRACE")!) { response in
                    XCTAssertEqual(response.status, .methodNotAllowed, "TRACE \(path)")
                    let allow = response.headers.first { $0.name.canonicalName == "allow" }?.value ?? ""
                    let listed = Set(allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    XCTAssertEqual(listed, methods, "Allow for \(path)")
                }
            }
        }
    }
}
