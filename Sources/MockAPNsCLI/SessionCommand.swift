import ArgumentParser
import Foundation
import MockAPNsControl
import MockAPNsCore

/// `mockapns session`: makes, lists and ends sessions on a running server, for a CI job that
/// shares one server with others: each job makes its own, points its provider at the
/// credentials written, and scopes its control calls with the session's token.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Make, list and end sessions on a running server: credentials of their own, seeing only their own.",
        subcommands: [Create.self, List.self, End.self]
    )

    /// Where the server is and the token to reach it with, as every subcommand takes them.
    struct Connection: ParsableArguments {
        @Option(name: .long, help: "The control API of the server (default http://127.0.0.1:2198).")
        var control: String?

        @Option(name: .customLong("control-token"), help: ArgumentHelp("The server's control token, or a session's to see only it (default: the environment variable MOCKAPNS_CONTROL_TOKEN).", valueName: "token"))
        var controlToken: String?

        func client() throws -> ControlClient {
            let url: ControlURL
            do {
                url = try ControlURL(control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)")
            } catch {
                throw ValidationError(error.description)
            }
            return ControlClient(url: url, token: try ControlTokenOption.resolve(flag: controlToken, flagName: "--control-token"))
        }
    }

    static let timeout = Duration.seconds(15)

    /// The answer's body when it is a success, else the server's error as the command's failure.
    static func success(_ answer: ControlClient.Answer, _ what: String) throws -> [JSONMember] {
        let parsed = try? JSONParser.parse(answer.body)
        guard (200..<300).contains(answer.status), case .object(let members)? = parsed?.value else {
            var reason = "HTTP \(answer.status)"
            if case .object(let members)? = parsed?.value, let error = members.first(where: { $0.key == "error" }),
               case .string(let text) = error.value.value {
                reason += ": \(text)"
            }
            throw SessionCommandFailure(description: "\(what) failed: \(reason)")
        }
        return members
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a session and write its credentials into a folder.",
            discussion: """
                Writes AuthKey_<KEYID>.p8 with a keys.json naming it (a key folder for mockapns token --key-dir), \
                client-session.pem and client-session-key.pem (its client certificate, when the server can issue one), \
                and control-token (for --control-token or MOCKAPNS_CONTROL_TOKEN); the secret files are readable by \
                their owner only. Prints the session's id, team and key id, and the folder; never a secret.
                """
        )

        @OptionGroup var connection: Connection

        @Option(name: .customLong("topic"), help: ArgumentHelp("A topic of the session (repeatable; default com.example.app).", valueName: "bundle-id"))
        var topics: [String] = []

        @Option(name: .customLong("idle-seconds"), help: ArgumentHelp("End it after this long unused (0: only when ended; default 900).", valueName: "seconds"))
        var idleSeconds: Int?

        @Option(name: .long, help: ArgumentHelp("The folder to write its credentials into (made if missing).", valueName: "folder"))
        var out: String

        func validate() throws {
            if let idleSeconds, !(0...86_400).contains(idleSeconds) { throw ValidationError("--idle-seconds must be from 0 to 86400") }
        }

        func run() async throws {
            var body = JSONWriter()
            body.beginObject()
            if !topics.isEmpty { body.strings("topics", topics) }
            body.integer("idleSeconds", idleSeconds)
            body.endObject()
            let answer = try await connection.client().send(.POST, "/v1/sessions", body: body.text, timeout: SessionCommand.timeout)
            let members = try SessionCommand.success(answer, "making the session")
            func text(_ key: String) -> String? {
                guard case .string(let value)? = members.first(where: { $0.key == key })?.value.value else { return nil }
                return value
            }
            guard let id = text("id"), let team = text("teamId"), let key = text("keyId"), let providerKey = text("providerKey"),
                  let token = text("controlToken") else {
                throw SessionCommandFailure(description: "the server's answer lacks the session's id, team, key or token")
            }
            let folder = URL(fileURLWithPath: out)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var manifest = JSONWriter()
            manifest.beginObject()
            manifest.beginArray("keys")
            manifest.beginObject()
            manifest.string("keyId", key)
            manifest.string("teamId", team)
            manifest.string("environment", "both")
            manifest.string("scope", "team")
            manifest.strings("topics", topics.isEmpty ? ["com.example.app"] : topics)
            manifest.endObject()
            manifest.endArray()
            manifest.endObject()
            try Self.write(manifest.text + "\n", to: folder.appendingPathComponent("keys.json"), secret: false)
            try Self.write(providerKey, to: folder.appendingPathComponent("AuthKey_\(key).p8"), secret: true)
            try Self.write(token + "\n", to: folder.appendingPathComponent("control-token"), secret: true)
            if let certificate = text("certificate"), let certificateKey = text("certificateKey") {
                try Self.write(certificate, to: folder.appendingPathComponent("client-session.pem"), secret: false)
                try Self.write(certificateKey, to: folder.appendingPathComponent("client-session-key.pem"), secret: true)
            } else if let why = text("certificateUnavailable") {
                say("no client certificate: \(why)")
            }
            say("session \(id): team \(team), key \(key); credentials in \(folder.path)")
        }

        private static func write(_ text: String, to file: URL, secret: Bool) throws {
            let created = FileManager.default.createFile(
                atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: secret ? 0o600 : 0o644])
            guard created else { throw SessionCommandFailure(description: "cannot write \(file.path)") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the sessions (a session's token lists its own), one per line.")

        @OptionGroup var connection: Connection

        func run() async throws {
            let answer = try await connection.client().get("/v1/sessions", timeout: SessionCommand.timeout)
            let members = try SessionCommand.success(answer, "listing the sessions")
            guard case .array(let sessions)? = members.first(where: { $0.key == "sessions" })?.value.value else { return }
            for session in sessions {
                guard case .object(let fields) = session.value else { continue }
                let line = ["id", "teamId", "keyId", "scenario"].map { key -> String in
                    guard case .string(let value)? = fields.first(where: { $0.key == key })?.value.value else { return "-" }
                    return value
                }
                say(line.joined(separator: "  "))
            }
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a session: its scenario, rules and registry go; its token and key stop working.")

        @OptionGroup var connection: Connection

        @Argument(help: "The session's id.")
        var id: String

        func run() async throws {
            let path = "/v1/sessions/" + (id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id)
            let answer = try await connection.client().send(.DELETE, path, body: "{}", timeout: SessionCommand.timeout)
            _ = try SessionCommand.success(answer, "ending session \(id)")
            say("session \(id) ended")
        }
    }
}

/// A session command the server refused or could not carry out, in one line.
struct SessionCommandFailure: Error, CustomStringConvertible {
    var description: String
}
