import MockAPNsTestSupport
import Foundation
@testable import MockAPNs
import MockAPNsCore
import XCTest

/// The control API and its OpenAPI document agree: every route is documented, every
/// documented operation is served, and a documented path asked with another method is
/// answered 405 with `Allow`.
final class ControlOpenAPITests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.control.port = 0 }
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

    /// `:token` in a route is `{token}` in the document.
    private func routeOperations() -> [String] {
        ControlAPI(server: server).routes.map { route in
            let path = route.path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }.joined(separator: "/")
            return "\(route.method.rawValue) \(path)"
        }
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
    }

    func testTheServedDocumentIsTheSourceFile() throws {
        let file = try String(contentsOfFile: Fixtures.root + "/Sources/MockAPNs/Control/control-api.openapi.json", encoding: .utf8)
        let served = try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(ports.control ?? 0)/openapi.json"])
        XCTAssertEqual(served.stdout, file)
    }

    /// Over the wire: each documented operation reaches a handler (never 404 or 405), and
    /// TRACE on each documented path is 405 with the documented methods in `Allow`.
    func testDocumentedOperationsAreServedAndOtherMethodsGet405() throws {
        var methodsByPath: [String: Set<String>] = [:]
        for operation in try documentedOperations() {
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            methodsByPath[parts[1], default: []].insert(parts[0])
        }
        let token = String(repeating: "ab", count: 32)
        let channel = "AAAAAAAAAAAAAAAAAAAAAA=="
        for (path, methods) in methodsByPath {
            let concrete = path.replacingOccurrences(of: "{token}", with: token).replacingOccurrences(of: "{id}", with: channel)
            let url = "http://127.0.0.1:\(ports.control ?? 0)\(concrete)"
            for method in methods {
                if path.contains("{id}") {
                    // A channel that exists (POST /v1/reset may have run), so deleting it reaches the handler.
                    let created = try ProcessRunner.run("curl", [
                        "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "content-type: application/json",
                        "--data-binary", #"{"bundleId": "com.example.app", "id": "\#(channel)"}"#,
                        "http://127.0.0.1:\(ports.control ?? 0)/v1/channels",
                    ])
                    XCTAssertEqual(created.stdout, "201")
                }
                let result = try ProcessRunner.run("curl", ["-sS", "--max-time", "3", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, url])
                XCTAssertFalse(["404", "405"].contains(result.stdout), "\(method) \(path): \(result.stdout)")
            }
            let trace = try ProcessRunner.run("curl", ["-sS", "-i", "-X", "TRACE", url]).stdout
            XCTAssertTrue(trace.hasPrefix("HTTP/1.1 405"), "TRACE \(path): \(trace.prefix(80))")
            let allow = trace.split(separator: "\r\n").first { $0.lowercased().hasPrefix("allow:") }
            let listed = Set((allow?.dropFirst("allow:".count) ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
            XCTAssertEqual(listed, methods, "Allow for \(path)")
        }
    }
}
