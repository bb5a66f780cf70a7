import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The dashboard's page and assets as the control API serves them.
final class DashboardTests: XCTestCase {
    private var server: MockAPNsServer!
    private var ports: BoundPorts!

    override func setUp() async throws {
        (server, ports) = try await TestServer.start { $0.controlPort = 0 }
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func get(_ path: String) throws -> (status: Int, contentType: String, body: String) {
        let result = try ProcessRunner.run(
            "curl", ["-sS", "-w", "\n%{http_code} %{content_type}", "http://127.0.0.1:\(ports.control ?? 0)\(path)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let trailer = lines.removeLast().split(separator: " ", maxSplits: 1)
        return (Int(trailer.first ?? "") ?? -1, trailer.count > 1 ? String(trailer[1]) : "", lines.joined(separator: "\n"))
    }

    func testThePageAndItsAssetsAreServedFromTheBinary() throws {
        let page = try get("/")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.contentType.hasPrefix("text/html"), page.contentType)
        XCTAssertTrue(page.body.contains(#"<script src="/dashboard/app.js">"#))
        XCTAssertTrue(page.body.contains(#"href="/dashboard/style.css""#))
        let script = try get("/dashboard/app.js")
        XCTAssertEqual(script.status, 200)
        XCTAssertTrue(script.contentType.hasPrefix("text/javascript"), script.contentType)
        XCTAssertTrue(script.body.contains("/v1/events/stream"))
        let style = try get("/dashboard/style.css")
        XCTAssertEqual(style.status, 200)
        XCTAssertTrue(style.contentType.hasPrefix("text/css"), style.contentType)
        // Nothing is fetched from elsewhere: no CDN, no absolute URLs.
        for asset in [page.body, script.body, style.body] {
            XCTAssertFalse(asset.contains("http://") || asset.contains("https://") || asset.contains("//cdn"))
        }
    }

    /// The control port's Content-Security-Policy allows scripts and styles from the API's own
    /// origin only (no 'unsafe-inline'), so the page must hold none inline: no script body, no
    /// style element or attribute, no `on...=` handler. A browser would silently skip them.
    func testThePageHasNothingInlineForItsPolicyToBlock() throws {
        let page = try get("/").body
        let scripts = page.components(separatedBy: "<script").count - 1
        let ownScripts = page.components(separatedBy: #"<script src="/dashboard/"#).count - 1
        XCTAssertEqual(scripts, 2)
        XCTAssertEqual(ownScripts, scripts, "every script is a file of the dashboard's")
        XCTAssertEqual(page.components(separatedBy: "></script>").count - 1, scripts, "with nothing between its tags")
        XCTAssertFalse(page.contains("<style"))
        XCTAssertNil(page.range(of: #"\s(style|on[a-z]+)\s*="#, options: [.regularExpression, .caseInsensitive]))
    }

    func testReasonsCarryTheirStatusAndMeaning() throws {
        let reply = try get("/v1/reasons")
        XCTAssertEqual(reply.status, 200)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
        let reasons = try XCTUnwrap(json["reasons"] as? [[String: Any]])
        XCTAssertEqual(reasons.count, Reason.allCases.count)
        let unregistered = try XCTUnwrap(reasons.first { $0["reason"] as? String == "Unregistered" })
        XCTAssertEqual(unregistered["status"] as? Int, 410)
        XCTAssertTrue((unregistered["meaning"] as? String ?? "").contains("no longer active"))
        XCTAssertTrue(reasons.allSatisfy { !($0["meaning"] as? String ?? "").isEmpty })
        // The legacy status bytes, each with its own meaning: 5 and 8 share a reason but not a cause.
        let legacy = try XCTUnwrap(json["legacyStatuses"] as? [[String: Any]])
        XCTAssertEqual(legacy.compactMap { $0["status"] as? Int }, LegacyStatus.allCases.map { Int($0.rawValue) })
        let meanings = Dictionary(uniqueKeysWithValues: legacy.compactMap { entry in
            (entry["status"] as? Int).map { ($0, entry["meaning"] as? String ?? "") }
        })
        XCTAssertTrue(meanings[5]?.hasPrefix("Invalid token size") ?? false, "\(meanings[5] ?? "none")")
        XCTAssertFalse(meanings[5]?.contains("environment") ?? true)
        XCTAssertTrue(meanings[8]?.contains("other environment") ?? false, "\(meanings[8] ?? "none")")
        XCTAssertEqual(Set(meanings.values).count, LegacyStatus.allCases.count, "every status has a meaning of its own")
    }

    func testEventKindsAndDiagnosisCodesComeFromTheServer() throws {
        let kindsReply = try get("/v1/event-kinds")
        XCTAssertEqual(kindsReply.status, 200)
        let kindsJSON = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(kindsReply.body.utf8)) as? [String: Any])
        let kinds = try XCTUnwrap(kindsJSON["kinds"] as? [[String: Any]])
        XCTAssertEqual(kinds.compactMap { $0["name"] as? String }, JournalEventKind.Name.texts)
        let perFrame = kinds.filter { $0["perFrame"] as? Bool == true }.compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(perFrame), ["http2Frame", "legacyFrame"])
        XCTAssertTrue(kinds.allSatisfy { !($0["meaning"] as? String ?? "").isEmpty })

        let codesReply = try get("/v1/diagnosis-codes")
        XCTAssertEqual(codesReply.status, 200)
        let codesJSON = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(codesReply.body.utf8)) as? [String: Any])
        let codes = try XCTUnwrap(codesJSON["codes"] as? [[String: Any]])
        XCTAssertEqual(codes.compactMap { $0["code"] as? String }, DiagnosisCode.allCases.map(\.rawValue))
        let notJSON = try XCTUnwrap(codes.first { $0["code"] as? String == "legacy.payloadNotJSON" })
        XCTAssertEqual(notJSON["area"] as? String, "legacy")
        XCTAssertTrue(codes.allSatisfy { !($0["meaning"] as? String ?? "").isEmpty })

        // The page's script names no event kind to follow: it asks the server.
        let script = try get("/dashboard/app.js")
        XCTAssertTrue(script.body.contains("/v1/event-kinds"))
        XCTAssertFalse(script.body.contains("notification,broadcast,channelOperation"))
    }
}
