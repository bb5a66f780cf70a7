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
    /// `mockapns certs dir`: the folder of the credentials a client needs, so its curl line
    /// names the files the server serves (the README's examples begin with it). A running
    /// server knows best: the one answering on the control API (default 127.0.0.1:2198) is
    /// asked first, so a terminal in the checkout (whose ./certs-dev a server started
    /// elsewhere does not use) gets the running server's folder. Without one, the folder
    /// `mockapns serve` would use if started here without --cert-dir.
    struct Dir: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dir",
            abstract: "Print the credentials folder of the running server, else the one mockapns serve uses when started here.",
            discussion: """
                A server answering on the control API (--control, default http://127.0.0.1:2198) says which \
                folder it serves. With none running: ./certs-dev when it holds a development set (inside a \
                MockAPNs checkout), else $XDG_DATA_HOME/mockapns, or ~/.mockapns without XDG_DATA_HOME \
                (filled by serve on its first run). Example: curl --cacert "$(mockapns certs dir)/ca.pem" ...
                """
        )

        @Option(name: .long, help: ArgumentHelp("The control API of the running server to ask (default http://127.0.0.1:2198).", valueName: "url"))
        var control: String?

        /// A server on loopback answers at once; nothing listening is known at once too.
        static let askTimeout = Duration.seconds(2)

        func validate() throws {
            do {
                _ = try ControlURL(controlText)
            } catch {
                throw ValidationError(error.description)
            }
        }

        private var controlText: String { control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)" }

        func run() async throws {
            if let served = await Self.servedFolder(ControlClient(url: try ControlURL(controlText))) {
                print(served)
                return
            }
            guard let folder = DevelopmentCredentials.implicitFolder() else {
                throw ServeError("no credentials folder: no server answered on \(controlText), HOME and XDG_DATA_HOME are unset and ./certs-dev does not exist")
            }
            print(DevelopmentCredentials.absolute(folder))
        }

        /// The folder the server behind `client` serves; `nil` when none answers as a MockAPNs
        /// server that says it (nothing listening, another program, an older server).
        static func servedFolder(_ client: ControlClient) async -> String? {
            guard let answer = try? await client.get("/v1/health", timeout: askTimeout), answer.status == 200,
                  let root = try? JSONParser.parse(answer.body), case .object(let members) = root.value,
                  let member = members.first(where: { $0.key == "credentials" }), case .string(let folder) = member.value.value,
                  folder.hasPrefix("/")
            else { return nil }
            return folder
        }
    }
}

extension DevelopmentKeyType: ExpressibleByArgument {}
