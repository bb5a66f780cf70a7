import ArgumentParser
import MockAPNs

/// `mockapns`: a mock Apple Push Notification service for tests and local development.
@main
struct MockAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mockapns",
        abstract: "A mock Apple Push Notification service: HTTP/2 provider API, legacy gateway and feedback.",
        version: MockAPNsVersion.current,
        subcommands: [
            ServeCommand.self, HealthCommand.self, CertsCommand.self, TokenCommand.self, ScenarioCommand.self, JournalCommand.self, ReportCommand.self,
        ]
    )
}
