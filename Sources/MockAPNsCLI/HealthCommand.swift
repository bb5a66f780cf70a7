import ArgumentParser
import MockAPNsCore

/// `mockapns health`: asks a running server's control API whether it is ready, and says so
/// in its exit code, for compose health checks and for CI steps that wait for a server.
///
/// A server answers `GET /v1/health` only once every listener is bound (the control API is
/// the last to start), so a 200 `{"status":"ok"}` means the APNs ports take connections.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 when the server behind a control API is ready, 1 when not (with the reason).",
        discussion: """
            Asks GET /v1/health of the control API. With --wait it asks again every 100 ms until \
            the server is ready or the time is up, so a CI step can wait for a server started in the \
            background: mockapns health --wait 30 --control http://127.0.0.1:2198
            """
    )

    @Option(name: .long, help: "The control API of the server (default http://127.0.0.1:2198).")
    var control: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to keep asking until the server is ready (0: ask once).", valueName: "seconds"))
    var wait: Double = 0

    /// How long one question may take.
    static let attemptTimeout = Duration.seconds(5)

    func validate() throws {
        guard wait >= 0, wait <= 3600 else { throw ValidationError("--wait must be from 0 to 3600 seconds") }
        do {
            _ = try ControlURL(controlText)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private var controlText: String { control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)" }

    func run() async throws {
        let client = ControlClient(url: try ControlURL(controlText))
        let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
        while true {
            let problem: String
            do {
                let answer = try await client.get("/v1/health", timeout: Self.attemptTimeout)
                if let refusal = Self.refusal(answer) {
                    problem = refusal
                } else {
                    say("ready: \(client.url.text)")
                    return
                }
            } catch {
                problem = error.description
            }
            if ContinuousClock.now >= deadline {
                let waited = wait > 0 ? " after waiting \(wait) s" : ""
                throw HealthProblem(description: "not ready\(waited): \(problem)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Why an answer does not say "ready", or `nil` when it does.
    static func refusal(_ answer: ControlClient.Answer) -> String? {
        guard answer.status == 200 else {
            return "GET /v1/health answered \(answer.status): \(answer.body.prefix(200))"
        }
        let status: String?
        do {
            var object = try JSONObjectReader(JSONParser.parse(answer.body))
            status = try object.string("status")
        } catch {
            return "GET /v1/health answered 200 but not a MockAPNs health object: \(answer.body.prefix(200))"
        }
        guard status == "ok" else { return "GET /v1/health says status \(status ?? "(none)")" }
        return nil
    }
}

/// The server is not ready: one line, exit code 1.
struct HealthProblem: Error, CustomStringConvertible {
    var description: String
}
