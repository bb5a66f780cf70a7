import ArgumentParser
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsVerdicts

/// `mockapns report`: the verdicts on each provider's retry logic, from a running server's
/// control API or from a JSONL journal file, as a short summary, JSON, or JUnit XML for CI;
/// `--fail-on` turns broken rules into a failing exit status.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Judge each provider's retry logic (live server or JSONL journal) and print the verdicts.",
        discussion: """
        Rules: \(VerdictRule.allCases.map(\.rawValue).joined(separator: ", ")).
        Exit status 1 when a rule named by --fail-on is broken by any provider; 2 when the report cannot be made.
        """
    )

    @Option(name: .long, help: "The control API to read (default http://127.0.0.1:2198).")
    var control: String?

    @Option(name: .customLong("control-token"), help: "The control API's bearer token, when it takes remote connections (else MOCKAPNS_CONTROL_TOKEN).")
    var controlToken: String?

    @Option(name: .long, help: "A JSON Lines journal file (--journal of serve) to judge instead; repeat it for the files of several replicas, judged as one run.")
    var file: [String] = []

    @Option(name: .long, help: "A configuration file whose \"verdicts\" thresholds judge --file (a live server uses its own).")
    var config: String?

    @Option(name: .long, help: "Also write the verdicts as JUnit XML to this file.")
    var junit: String?

    @Option(name: .customLong("fail-on"), help: "Exit 1 if any of these rules is broken, comma-separated, or \"all\".")
    var failOn: String?

    @Flag(name: .long, help: "Print the report as JSON instead of a summary.")
    var json = false

    func validate() throws {
        if control != nil, !file.isEmpty { throw ValidationError("give --control or --file, not both") }
        if config != nil, file.isEmpty { throw ValidationError("--config judges a --file; a live server uses its own thresholds") }
        _ = try failingRules()
    }

    /// The rules `--fail-on` names.
    func failingRules() throws -> Set<VerdictRule> {
        guard let failOn else { return [] }
        var rules: Set<VerdictRule> = []
        for name in failOn.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            if name == "all" {
                rules.formUnion(VerdictRule.allCases)
            } else if let rule = VerdictRule(rawValue: name) {
                rules.insert(rule)
            } else {
                throw ValidationError("--fail-on: unknown rule \"\(name)\"; known: all, \(VerdictRule.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        return rules
    }

    func run() async throws {
        let report: VerdictReport
        do {
            if !file.isEmpty {
                report = try JournalFileJudge(paths: file, settings: try settings()).report()
            } else {
                let url = try ControlURL(control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)")
                let token = try ControlTokenOption.resolve(flag: controlToken, flagName: "--control-token")
                report = try await Self.fetch(ControlClient(url: url, token: token))
            }
        } catch let error as JournalReadError {
            FileHandle.standardError.write(Data("mockapns report: \(error)\n".utf8))
            throw ExitCode(2)
        }
        print(json ? VerdictJSON.encode(report) : report.summary())
        if let junit {
            do {
                try Data(VerdictJUnit.xml(report, examples: report.settings.examplesPerRule).utf8)
                    .write(to: URL(fileURLWithPath: junit), options: .atomic)
            } catch {
                FileHandle.standardError.write(Data("mockapns report: cannot write \(junit): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
        }
        let failing = try failingRules().intersection(report.brokenRules)
        if !failing.isEmpty {
            let names = VerdictRule.allCases.filter(failing.contains).map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("mockapns report: broken: \(names)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The thresholds for judging a file: the configuration file's, or the defaults.
    private func settings() throws -> VerdictSettings {
        guard let config else { return VerdictSettings() }
        guard let data = FileManager.default.contents(atPath: config) else {
            throw JournalReadError(message: "cannot read \(config)")
        }
        do {
            return try MockAPNsConfiguration.parse(json: String(decoding: data, as: UTF8.self)).verdicts
        } catch {
            throw JournalReadError(message: "\(config): \(error)")
        }
    }

    /// `GET /v1/report` of a control API.
    static func fetch(_ client: ControlClient) async throws -> VerdictReport {
        let answer: ControlClient.Answer
        do {
            answer = try await client.get("/v1/report", timeout: .seconds(30))
        } catch {
            throw JournalReadError(message: "\(error.description); is `mockapns serve` running there? (--control URL)")
        }
        let source = client.url.text + "/v1/report"
        guard answer.status == 200 else {
            throw JournalReadError(message: "\(source): \(answer.status) \(answer.body)")
        }
        do {
            return try VerdictJSON.decodeReport(answer.body)
        } catch {
            throw JournalReadError(message: "\(source): \(error)")
        }
    }
}

/// Judges JSONL journal files with the same judge the server runs live: one file from its
/// first line to its last; the files of several replicas (each its own `--journal`) as one run
/// (`RunOfReplicas`).
struct JournalFileJudge {
    var paths: [String]
    var settings: VerdictSettings

    func report() throws -> VerdictReport {
        var run = RunOfReplicas()
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw JournalReadError(message: "cannot open \(path)")
            }
            var events: [JournalEvent] = []
            var lineNumber = 0
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                lineNumber += 1
                guard !line.isEmpty else { continue }
                let text = String(decoding: line, as: UTF8.self)
                if let gap = JournalFileGap(line: text) {
                    run.gaps.append(gap)
                    continue
                }
                do {
                    events.append(try JournalJSON.decode(text))
                } catch {
                    throw JournalReadError(message: "\(path) line \(lineNumber): \(error)")
                }
            }
            run.replicas.append(events)
        }
        return run.report(settings: settings)
    }
}
