import Foundation

/// Paths into the committed development certificates.
enum Fixtures {
    /// The repository's root, found from this file's location.
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()

    static var certificateDirectory: String { root + "/certs-dev" }
    static var caPath: String { certificateDirectory + "/ca.pem" }

    /// The `mockapns` executable: `swift build --build-tests` puts it beside the test bundle.
    static var executable: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var folder = testBinary.deletingLastPathComponent()
        // On macOS the runner is xctest and the bundle path is an argument.
        if let bundle = CommandLine.arguments.first(where: { $0.hasSuffix(".xctest") }) {
            folder = URL(fileURLWithPath: bundle).deletingLastPathComponent()
        }
        return folder.appendingPathComponent("mockapns").path
    }

    /// A fresh path in the temporary directory (nothing is created there).
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-\(UUID().uuidString)-\(name)").path
    }

    /// A well-formed 32-byte token in lowercase hex.
    static let token = String(repeating: "a1b2c3d4", count: 8)
}
