import Foundation
import MockAPNsCore

/// Where `serve` and `token` find the development credentials (server certificate, CA, client
/// certificates, provider keys) when no folder is named:
///
/// 1. the folder given with `--cert-dir` / `--key-dir` (or the configuration file);
/// 2. `./certs-dev` when it holds a development set (inside a MockAPNs checkout);
/// 3. the per-user folder `$XDG_DATA_HOME/mockapns`, or `~/.mockapns` without XDG_DATA_HOME,
///    which `serve` fills with a fresh development set on its first run.
enum CredentialDirectory {
    /// The folder a checkout carries.
    static let checkoutFolder = "certs-dev"

    /// The per-user folder; `nil` when neither XDG_DATA_HOME nor HOME is set.
    static var perUser: String? {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return (data as NSString).appendingPathComponent("mockapns")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return (home as NSString).appendingPathComponent(".mockapns")
        }
        return nil
    }

    /// The folder to use when none was named: the checkout's when it has `marker` (a file
    /// every development set has), else the per-user folder.
    static func implicit(holding marker: String) -> String? {
        let checkout = (checkoutFolder as NSString).appendingPathComponent(marker)
        if FileManager.default.fileExists(atPath: checkout) { return checkoutFolder }
        return perUser
    }

    /// Whether `directory` already holds a development set.
    static func isPopulated(_ directory: String) -> Bool {
        ["server.pem", "server-key.pem", "ca.pem"].allSatisfy {
            FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent($0))
        }
    }

    /// Writes a fresh development set into `directory`, creating it (owner-only) if needed.
    @discardableResult
    static func generate(
        into directory: String, options: DevelopmentCertificateOptions = DevelopmentCertificateOptions(),
        keyType: DevelopmentKeyType = .ecdsa
    ) throws -> (set: DevelopmentCertificateSet, files: [DevelopmentFile]) {
        let set: DevelopmentCertificateSet
        let files: [DevelopmentFile]
        do {
            set = try DevelopmentCertificateFactory(options: options, keyType: keyType).generate()
            files = try set.files()
        } catch {
            throw ServeError(error.description)
        }
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for file in files {
                try Data(file.contents.utf8).write(to: url.appendingPathComponent(file.name), options: .atomic)
            }
        } catch {
            throw ServeError("cannot write the development credentials into \(directory): \(error.localizedDescription)")
        }
        return (set, files)
    }

    /// A path as a shell argument: quoted when it holds anything a shell would split or expand.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+:@%".unicodeScalars.contains($0) }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
