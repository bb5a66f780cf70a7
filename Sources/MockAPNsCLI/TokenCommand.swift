import ArgumentParser
import Foundation
import MockAPNs
import MockAPNsCore

/// `mockapns token`: prints a provider token signed with a key from the key directory.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a provider token (JWT) signed with a development key.",
        discussion: """
            Example: curl -H "authorization: bearer $(mockapns token --key-id SANDBOX001)" ...
            The team id comes from keys.json in the key directory unless --team is given. \
            Against a server started with --clock, give the token the same --clock, \
            or the server finds its issue time in the future or too old.
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

    @Option(name: .long, help: "The time to issue the token at, as serve's --clock takes it: real, epoch seconds, or an ISO 8601 UTC time (e.g. 2026-01-01T00:00:00Z).")
    var clock: String?

    func validate() throws {
        if issuedAt != nil, clock != nil { throw ValidationError("give --issued-at or --clock, not both") }
        if let clock, ClockSetting.parse(text: clock) == nil { throw ValidationError(ServeCommand.clockUsage) }
    }

    func run() throws {
        guard let keyDirectory = keyDirectory ?? DevelopmentCredentials.implicitFolder(holding: "keys.json") else {
            throw ServeError("no key folder: HOME and XDG_DATA_HOME are unset and ./certs-dev does not exist; pass --key-dir DIR")
        }
        let keyFile = keyDirectory + "/AuthKey_\(keyID).p8"
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            throw ServeError(Self.missingKey(keyFile: keyFile, keyID: keyID, in: keyDirectory))
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
        print(try signer.token(issuedAt: issueTime()))
    }

    /// `--issued-at`, else `--clock` (pinned or real), else now, in seconds since 1970.
    private func issueTime() -> Int64 {
        if let issuedAt { return issuedAt }
        if let clock, case .some(.some(let milliseconds)) = ClockSetting.parse(text: clock) { return milliseconds / 1000 }
        return Int64(Date().timeIntervalSince1970)
    }

    /// Why the key file cannot be used: a folder holding other keys lists them (the id was
    /// mistyped); a folder with none says how to make a set.
    static func missingKey(keyFile: String, keyID: String, in directory: String) -> String {
        let exists = FileManager.default.fileExists(atPath: keyFile)
        if exists {
            return "the provider key \(keyFile) is not readable (--key-id \(keyID) in --key-dir \(directory))"
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let keyIDs = names.compactMap { name -> String? in
            guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
            return String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
        }.sorted()
        if !keyIDs.isEmpty {
            return "no key \(keyID) in \(directory): its keys are \(keyIDs.joined(separator: ", ")) (pass one with --key-id)"
        }
        return "the provider key \(keyFile) does not exist (--key-id \(keyID) in --key-dir \(directory)), nor any other key there; "
            + "`mockapns serve` creates a development set there on its first run, "
            + "or `mockapns certs generate --out \(directory)`"
    }
}
