#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MockAPNsCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MockAPNsDevelopmentPKI

/// The development credentials a server uses when none are configured, and where a client
/// finds their counterparts: the CA to trust, the client certificates and the provider keys.
///
/// A server whose `certificateDirectory` is empty (the default) takes them from, in order:
/// 1. `./certs-dev` when it holds a development set (inside a MockAPNs checkout);
/// 2. the per-user folder, `$XDG_DATA_HOME/mockapns` or `~/.mockapns` without XDG_DATA_HOME;
/// 3. a folder of its own under the temporary directory when neither variable is set.
///
/// The folder is filled with a fresh development set on first use (`prepare`). `mockapns
/// serve` and an embedded `MockAPNsServer` choose it the same way, so both serve the same set.
public struct DevelopmentCredentials: Sendable, Equatable {
    /// The folder holding the set.
    public var directory: String
    /// Whether this process generated the set (rather than finding it there).
    public var generated: Bool

    package init(directory: String, generated: Bool) {
        self.directory = directory
        self.generated = generated
    }

    /// The CA that signed the server and client certificates: what a client must trust.
    public var caCertificatePath: String { path("ca.pem") }
    /// The client certificate of `environment` for `com.example.app` (PEM).
    public func clientCertificatePath(for environment: APNsEnvironment) -> String { path(Self.clientStem(environment) + ".pem") }
    /// The private key of that client certificate (PEM).
    public func clientKeyPath(for environment: APNsEnvironment) -> String { path(Self.clientStem(environment) + "-key.pem") }
    /// The folder with `AuthKey_<KEYID>.p8` files and `keys.json` (`mockapns token --key-dir`).
    public var providerKeyDirectory: String { directory }

    /// A file of the set.
    public func path(_ name: String) -> String { Self.join(directory, name) }

    private static func clientStem(_ environment: APNsEnvironment) -> String {
        switch environment {
        case .sandbox: "client-sandbox"
        case .production: "client-production"
        }
    }

    // MARK: Choosing the folder

    /// The folder a checkout carries.
    package static let checkoutFolder = "certs-dev"

    /// The files every development set has; a folder with all of them holds one.
    static let markers = ["server.pem", "server-key.pem", "ca.pem"]

    /// The per-user folder; `nil` when neither XDG_DATA_HOME nor HOME is set.
    package static var perUserFolder: String? {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return join(data, "mockapns") }
        if let home = environment["HOME"], !home.isEmpty { return join(home, ".mockapns") }
        return nil
    }

    /// The folder to use when none was named: the checkout's when it has `marker` (a file
    /// every development set has), else the per-user folder; `nil` when there is none.
    package static func implicitFolder(holding marker: String = "server.pem") -> String? {
        if FileManager.default.fileExists(atPath: join(checkoutFolder, marker)) { return checkoutFolder }
        return perUserFolder
    }

    /// `implicitFolder`, or else a folder of this process's own under the temporary directory.
    static func implicitFolderOrTemporary() -> String {
        if let folder = implicitFolder() { return folder }
        return join(FileManager.default.temporaryDirectory.path, "mockapns-\(getpid())-\(UInt32.random(in: .min ... .max))")
    }

    /// Whether `directory` holds a development set.
    package static func isPopulated(_ directory: String) -> Bool {
        markers.allSatisfy { FileManager.default.fileExists(atPath: join(directory, $0)) }
    }

    // MARK: Making a set

    /// The set in `directory`, generated there first when the folder does not hold one.
    ///
    /// Two processes starting at once (parallel test runs) must not mix two sets, so the set is
    /// written into a fresh sibling folder and renamed into place: the first rename wins, and
    /// the loser uses the winner's set.
    package static func prepare(in directory: String) throws(DevelopmentCredentialsError) -> DevelopmentCredentials {
        if isPopulated(directory) { return DevelopmentCredentials(directory: directory, generated: false) }
        let parent = parentFolder(of: directory)
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw DevelopmentCredentialsError(directory: directory, reason: "cannot create \(parent): \(error)")
        }
        let staging = join(parent, ".mockapns-credentials-\(getpid())-\(UInt32.random(in: .min ... .max))")
        _ = try write(generateFiles(), into: staging)
        if rename(staging, directory) == 0 { return DevelopmentCredentials(directory: directory, generated: true) }
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(atPath: staging)
        if isPopulated(directory) { return DevelopmentCredentials(directory: directory, generated: false) }
        // The folder exists and holds something else (a partial set): fill it in place.
        guard FileManager.default.fileExists(atPath: directory) else {
            throw DevelopmentCredentialsError(directory: directory, reason: "cannot move the new set into place: \(reason)")
        }
        _ = try write(generateFiles(), into: directory)
        return DevelopmentCredentials(directory: directory, generated: true)
    }

    /// A fresh development set's files.
    package static func generateFiles(
        options: DevelopmentCertificateOptions = DevelopmentCertificateOptions(), keyType: DevelopmentKeyType = .ecdsa
    ) throws(DevelopmentCredentialsError) -> (set: DevelopmentCertificateSet, files: [DevelopmentFile]) {
        do {
            let set = try DevelopmentCertificateFactory(options: options, keyType: keyType).generate()
            return (set, try set.files())
        } catch {
            throw DevelopmentCredentialsError(directory: nil, reason: error.description)
        }
    }

    /// Writes `files` into `directory`, creating it (owner-only) if needed and replacing files
    /// of the same names.
    @discardableResult
    package static func write(
        _ generated: (set: DevelopmentCertificateSet, files: [DevelopmentFile]), into directory: String
    ) throws(DevelopmentCredentialsError) -> (set: DevelopmentCertificateSet, files: [DevelopmentFile]) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for file in generated.files {
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: join(directory, file.name)), options: .atomic)
            }
        } catch {
            throw DevelopmentCredentialsError(directory: directory, reason: "cannot write the development credentials: \(error)")
        }
        return generated
    }

    /// `path` from the root, so a client running in another folder can use it.
    package static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return join(FileManager.default.currentDirectoryPath, relative)
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    private static func parentFolder(of directory: String) -> String {
        var path = Substring(directory)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// Development credentials could not be generated or written.
package struct DevelopmentCredentialsError: Error, Sendable, CustomStringConvertible {
    /// The folder they were for, when known.
    package var directory: String?
    package var reason: String

    package var description: String {
        guard let directory else { return reason }
        return "development credentials in \(directory): \(reason)"
    }
}
