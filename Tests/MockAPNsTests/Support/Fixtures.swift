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

    /// A well-formed 32-byte token in lowercase hex.
    static let token = String(repeating: "a1b2c3d4", count: 8)
}
