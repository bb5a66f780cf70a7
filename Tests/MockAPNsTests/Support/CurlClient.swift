import MockAPNsTestSupport
import Foundation

/// One HTTP/2 response as curl reported it.
struct CurlResponse {
    var httpVersion: String
    var status: Int
    /// Header names lowercased, in order.
    var headers: [(name: String, value: String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// Drives the real `curl --http2` binary against a server.
struct CurlClient {
    var port: Int
    var caPath: String = Fixtures.caPath
    /// The certs-dev client certificate to present (`client-<name>.pem`), or `nil` for none.
    var certificate: String? = "universal"
    var extraArguments: [String] = []

    /// Sends one request and parses curl's `-D -` header dump and body.
    func send(
        method: String = "POST",
        path: String,
        headers: [(String, String)] = [],
        body: String? = #"{"aps":{"alert":"hello"}}"#
    ) throws -> CurlResponse {
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        var arguments = ["--http2", "-sS", "--cacert", caPath, "-X", method, "-D", "-", "-o", bodyFile.path]
        if let certificate {
            let base = Fixtures.certificateDirectory + "/client-" + certificate
            arguments += ["--cert", base + ".pem", "--key", base + "-key.pem"]
        }
        for (name, value) in headers {
            arguments += ["-H", "\(name): \(value)"]
        }
        if let body {
            arguments += ["--data-binary", body]
        }
        arguments += extraArguments
        arguments.append("https://127.0.0.1:\(port)\(path)")
        let result = try ProcessRunner.run("curl", arguments)
        guard result.status == 0 else {
            throw CurlFailure(status: result.status, stderr: result.stderr)
        }
        let responseBody = (try? String(contentsOf: bodyFile, encoding: .utf8)) ?? ""
        return try Self.parse(headerDump: result.stdout, body: responseBody)
    }

    static func parse(headerDump: String, body: String) throws -> CurlResponse {
        let lines = headerDump.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        guard let statusLine = lines.first else { throw CurlFailure(status: -1, stderr: "no status line") }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw CurlFailure(status: -1, stderr: "bad status line: \(statusLine)")
        }
        let headers: [(String, String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (name, value)
        }
        return CurlResponse(httpVersion: String(parts[0]), status: status, headers: headers, body: body)
    }
}

struct CurlFailure: Error, CustomStringConvertible {
    let status: Int32
    let stderr: String
    var description: String { "curl exited \(status): \(stderr)" }
}
