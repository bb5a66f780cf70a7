import ArgumentParser

/// `mockapns certs`: development certificates and provider keys.
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "certs", abstract: "Development certificates and keys.")
}
