import ArgumentParser
import Foundation
import MockAPNsCore

/// `mockapns certs`: development certificates and provider keys.
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Development certificates and keys.",
        subcommands: [Generate.self]
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

        func run() async throws {
            var options = DevelopmentCertificateOptions(teamID: team)
            if let first = topics.first {
                options.bundleID = first
                options.extraTopics = Array(topics.dropFirst())
            }

            let set: DevelopmentCertificateSet
            let files: [DevelopmentFile]
            do {
                set = try DevelopmentCertificateFactory(options: options).generate()
                files = try set.files()
            } catch {
                throw ValidationError(error.description)
            }

            let directory = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in files {
                try Data(file.contents.utf8).write(to: directory.appendingPathComponent(file.name), options: .atomic)
            }

            print("Wrote \(files.count) files to \(directory.path) (development only: the private keys are not secret).")
            print("  bundle id \(options.bundleID), team \(options.teamID)")
            for key in set.providerKeys {
                print("  \(key.fileName): team \(key.teamID), \(key.environment.rawValue), \(key.scope) scope")
            }
        }
    }
}
