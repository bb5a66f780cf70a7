import ArgumentParser
internal import CMockAPNsBuildInfo
import MockAPNs

/// `mockapns`: a mock Apple Push Notification service for tests and local development.
@main
struct MockAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mockapns",
        abstract: "A mock Apple Push Notification service: HTTP/2 provider API, legacy gateway and feedback.",
        discussion: """
            Exit status: 0 when the command did what it was asked (serve: shut down by SIGINT or \
            SIGTERM); 1 when it failed (serve could not start, health: not ready, scenario \
            validate: the file is invalid, report: a rule named by --fail-on is broken, or any \
            other error, told on standard error); 2 when report cannot read the journal or write \
            its JUnit file; 64 for a mistake on the command line (an unknown flag, a value out of \
            range), told with the command's usage.
            """,
        version: versionLine,
        subcommands: [
            ServeCommand.self, HealthCommand.self, CertsCommand.self, TokenCommand.self, ScenarioCommand.self, JournalCommand.self, ReportCommand.self, SessionCommand.self,
        ]
    )
}

extension MockAPNsCommand {
    /// What `mockapns --version` prints: the version, and the commit it was built from when
    /// the build knew it ("0.1.0 (commit 6db1c3e12345)").
    static var versionLine: String {
        let commit = String(cString: mockapns_build_commit())
        return commit.isEmpty ? MockAPNsVersion.current : "\(MockAPNsVersion.current) (commit \(commit))"
    }
}
