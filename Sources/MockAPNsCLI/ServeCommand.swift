import ArgumentParser

/// `mockapns serve`: runs the mock server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the mock APNs server.")

    func run() async throws {
        throw ValidationError("serve is not implemented yet")
    }
}
