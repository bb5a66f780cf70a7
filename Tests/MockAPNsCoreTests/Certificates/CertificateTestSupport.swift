import Foundation
import MockAPNsCore
import XCTest

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

    /// Runs `openssl <arguments>` in the directory, capturing stdout and stderr together.
    @discardableResult
    func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
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
