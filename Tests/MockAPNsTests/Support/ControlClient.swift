import Foundation
import MockAPNsTestSupport
import XCTest

/// The control API over real HTTP, with curl, as a script calls it: JSON bodies, and
/// `Content-Type: application/json` on every request but GET and HEAD (the API refuses
/// state changes without it).
struct ControlClient {
    struct Reply {
        var status: Int
        var text: String
        var json: [String: Any]
    }

    var port: Int

    /// One request; `headers` are extra `Name: value` lines (they may replace the content type).
    func call(_ method: String, _ path: String, body: String? = nil, headers: [String] = []) throws -> Reply {
        var arguments = ["-sS", "-X", method, "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"]
        if !["GET", "HEAD"].contains(method), !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            arguments += ["-H", "content-type: application/json"]
        }
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        let result = try ProcessRunner.run("curl", arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let text = lines.dropLast().joined(separator: "\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return Reply(status: Int(lines.last ?? "") ?? -1, text: text, json: json)
    }
}
