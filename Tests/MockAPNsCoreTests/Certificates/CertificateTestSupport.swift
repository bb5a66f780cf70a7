import Foundation
import MockAPNsCore
import MockAPNsTestSupport
import XCTest
import MockAPNsDevelopmentPKI

/// Runs the `openssl` command-line tool for cross-checks against an independent
/// implementation. Tests that need it are skipped where it is not installed.
struct OpenSSL {
    struct Result {
        var status: Int32
        var output: String
    }

    let directory: URL

    /// A fresh temporary directory, removed by the test's teardown block.
    static func inTemporaryDirectory(for testCase: XCTestCase) throws -> OpenSSL {
        guard isInstalled else { throw XCTSkip("the openssl command-line tool is not installed") }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mockapns-certs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return OpenSSL(directory: directory)
    }

    static var isInstalled: Bool {
        (try? OpenSSL(directory: FileManager.default.temporaryDirectory).run(["version"]).status) == 0
    }

    func write(_ contents: String, to name: String) throws {
        try Data(contents.utf8).write(to: url(name))
    }

    func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(name)))
    }

    func url(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Runs `openssl <arguments>` in the directory; `output` is stdout, then stderr.
    @discardableResult
    func run(_ arguments: [String]) throws -> Result {
        let result = try ProcessRunner.run("openssl", arguments, in: directory)
        return Result(status: result.status, output: result.stdout + result.stderr)
    }
}

extension DevelopmentCertificateSet {
    /// Writes every file of the set into `directory`, as `mockapns certs generate` does.
    func write(to directory: URL) throws {
        for file in try files() {
            try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.name))
        }
    }
}
