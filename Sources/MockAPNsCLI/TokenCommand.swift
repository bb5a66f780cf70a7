import ArgumentParser
import Foundation
import MockAPNsCore

/// `mockapns token`: prints a provider token signed with a key from the key directory.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a provider token (JWT) signed with a development key.",
        discussion: """
            Example: curl -H "authorization: bearer $(mockapns token --key-id SANDBOX001)" ...
            The team id comes from keys.json in the key directory unless --team is given.
            """
    )

    @Option(name: .customLong("key-id"), help: "The key id (AuthKey_<KEYID>.p8 in the key directory).")
    var keyID: String = "SANDBOX001"

    @Option(name: .customLong("key-dir"), help: "The folder with AuthKey_<KEYID>.p8 and keys.json (default: where mockapns serve finds them: ./certs-dev if present, else $XDG_DATA_HOME/mockapns or ~/.mockapns).")
    var keyDirectory: String?

    @Option(name: .long, help: "The team id (iss); default: the key's team in keys.json.")
    var team: String?

    @Option(name: .customLong("issued-at"), help: "iat in seconds since 1970 (default: now).")
    var issuedAt: Int64?

    func run() throws {
        guard let keyDirectory = keyDirectory ?? CredentialDirectory.implicit(holding: "keys.json") else {
            throw ServeError("no key folder: HOME and XDG_DATA_HOME are unset and ./certs-dev does not exist; pass --key-dir DIR")
        }
        let keyFile = keyDirectory + "/AuthKey_\(keyID).p8"
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            let problem = FileManager.default.fileExists(atPath: keyFile) ? "is not readable" : "does not exist"
            throw ServeError(
                "the provider key \(keyFile) \(problem) (--key-id \(keyID) in --key-dir \(keyDirectory)); "
                    + "`mockapns serve` creates a development set there on its first run, "
                    + "or `mockapns certs generate --out \(keyDirectory)`")
        }
        let teamID: String
        if let team {
            teamID = team
        } else {
            guard let manifestText = try? String(contentsOfFile: keyDirectory + "/keys.json", encoding: .utf8) else {
                throw ServeError("cannot read \(keyDirectory)/keys.json (it names each key's team); pass --team, or create the folder with `mockapns certs generate --out \(keyDirectory)`")
            }
            let manifest = try ProviderKeyManifest(parsing: manifestText)
            guard let entry = manifest.entries.first(where: { $0.keyID == keyID }) else {
                throw ServeError("\(keyID) is not listed in \(keyDirectory)/keys.json; pass --team")
            }
            teamID = entry.teamID
        }
        let signer = try ProviderTokenSigner(keyID: keyID, teamID: teamID, privateKeyPEM: pem)
        print(try signer.token(issuedAt: issuedAt ?? Int64(Date().timeIntervalSince1970)))
    }
}
