import ArgumentParser
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsDevelopmentPKI

/// `mockapns certs`: development certificates and provider keys.
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Development certificates and keys.",
        subcommands: [Generate.self, Dir.self]
    )
}

extension CertsCommand {
    /// `mockapns certs generate`: writes a fresh development set (CA, server and client
    /// certificates, provider keys, keys.json, README.md) into a directory.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write a development CA, server and client certificates and .p8 provider keys.",
            discussion: "Every private key written is for development only. Existing files of the same names are replaced."
        )

        @Option(name: .long, help: "Directory to write into (created if missing).")
        var out: String = "certs-dev"

        @Option(
            name: .customLong("topic"),
            help: "Bundle id of the client certificates; repeat it to add topics to the universal certificate (the first is the base topic)."
        )
        var topics: [String] = []

        @Option(name: .long, help: "Team id (10 uppercase letters or digits) of the certificates and keys.")
        var team: String = DevelopmentCertificateOptions.defaultTeamID

        @Option(name: .customLong("key-type"), help: "Key algorithm of the certificates: ecdsa is P-256, rsa is RSA 2048 (as Apple issues them). Provider keys are always ES256.")
        var keyType: DevelopmentKeyType = .ecdsa

        func run() async throws {
            var options = DevelopmentCertificateOptions(teamID: team)
            if let first = topics.first {
                options.bundleID = first
                options.extraTopics = Array(topics.dropFirst())
            }

            let (set, files) = try CredentialDirectory.generate(into: out, options: options, keyType: keyType)
            let directory = URL(fileURLWithPath: out, isDirectory: true)

            print("Wrote \(files.count) files to \(directory.path) (development only: the private keys are not secret).")
            print("  bundle id \(options.bundleID), team \(options.teamID), \(keyType == .rsa ? "RSA 2048" : "ECDSA P-256") certificates")
            for key in set.providerKeys {
                print("  \(key.fileName): team \(key.teamID), \(key.environment.rawValue), \(key.scope) scope")
            }
        }
    }
}

extension CertsCommand {
    /// `mockapns certs dir`: the folder `mockapns serve` and `mockapns token` use when started
    /// here without --cert-dir or --key-dir, so a client's curl line names the files the
    /// server serves (the README's examples begin with it).
    struct Dir: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dir",
            abstract: "Print the credentials folder mockapns serve uses when started here without --cert-dir.",
            discussion: """
                ./certs-dev when it holds a development set (inside a MockAPNs checkout), else \
                $XDG_DATA_HOME/mockapns, or ~/.mockapns without XDG_DATA_HOME (filled by serve on its first run). \
                Example: curl --cacert "$(mockapns certs dir)/ca.pem" ...
                """
        )

        func run() throws {
            guard let folder = DevelopmentCredentials.implicitFolder() else {
                throw ServeError("no credentials folder: HOME and XDG_DATA_HOME are unset and ./certs-dev does not exist")
            }
            print(DevelopmentCredentials.absolute(folder))
        }
    }
}

extension DevelopmentKeyType: ExpressibleByArgument {}
