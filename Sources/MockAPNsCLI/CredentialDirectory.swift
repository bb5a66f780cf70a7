import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsDevelopmentPKI

/// Where `serve` and `token` find the development credentials (server certificate, CA, client
/// certificates, provider keys) when no folder is named:
///
/// 1. the folder given with `--cert-dir` / `--key-dir` (or the configuration file);
/// 2. `./certs-dev` when it holds a development set (inside a MockAPNs checkout);
/// 3. the per-user folder `$XDG_DATA_HOME/mockapns`, or `~/.mockapns` without XDG_DATA_HOME,
///    which `serve` fills with a fresh development set on its first run.
///
/// The choice and the generation are `DevelopmentCredentials`', shared with an embedded server.
enum CredentialDirectory {
    /// Writes a fresh development set into `directory`, creating it (owner-only) if needed and
    /// replacing files of the same names (`mockapns certs generate`).
    @discardableResult
    static func generate(
        into directory: String, options: DevelopmentCertificateOptions = DevelopmentCertificateOptions(),
        keyType: DevelopmentKeyType = .ecdsa
    ) throws -> (set: DevelopmentCertificateSet, files: [DevelopmentFile]) {
        do {
            return try DevelopmentCredentials.write(DevelopmentCredentials.generateFiles(options: options, keyType: keyType), into: directory)
        } catch {
            throw ServeError(error.description)
        }
    }

    /// A path as a shell argument: quoted when it holds anything a shell would split or expand.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+:@%".unicodeScalars.contains($0) }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
