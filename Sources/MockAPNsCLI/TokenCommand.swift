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

    @Option(name: .customLong("key-dir"), help: "The folder with AuthKey_<KEYID>.p8 and keys.json (default certs-dev).")
    var keyDirectory: String = "certs-dev"

    @Option(name: .long, help: "The team id (iss); default: the key's team in keys.json.")
    var team: String?

    @Option(name: .customLong("issued-at"), help: "iat in seconds since 1970 (default: now).")
    var issuedAt: Int64?

    func run() throws {
        let keyFile = keyDirectory + "/AuthKey_\(keyID).p8"
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            throw ValidationError("cannot read \(keyFile)")
        }
        let teamID: String
        if let team {
            teamID = team
        } else {
            guard let manifestText = try? String(contentsOfFile: keyDirectory + "/keys.json", encoding: .utf8) else {
                throw ValidationError("cannot read \(keyDirectory)/keys.json; pass --team")
            }
            let manifest = try ProviderKeyManifest(parsing: manifestText)
            guard let entry = manifest.entries.first(where: { $0.keyID == keyID }) else {
                throw ValidationError("\(keyID) is not listed in \(keyDirectory)/keys.json; pass --team")
            }
            teamID = entry.teamID
        }
        let signer = try ProviderTokenSigner(keyID: keyID, teamID: teamID, privateKeyPEM: pem)
        print(try signer.token(issuedAt: issuedAt ?? Int64(Date().timeIntervalSince1970)))
    }
}
