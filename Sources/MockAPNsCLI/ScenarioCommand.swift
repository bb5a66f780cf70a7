import ArgumentParser
import Foundation
import MockAPNsCore
import MockAPNsScenario

/// `mockapns scenario ...`: work with scenario files.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Check scenario files (scripted behaviour and faults).",
        subcommands: [ValidateScenarioCommand.self]
    )
}

/// `mockapns scenario validate FILE...`: exit 0 when every file is a valid scenario, else
/// print every mistake (file, line, column, JSON path, what was expected) and exit 1.
struct ValidateScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files; print every mistake with its line, column and JSON path."
    )

    @Argument(help: "Scenario files (JSON).")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            // `scenarios/*.json` takes in the format's JSON Schema too: it is no scenario.
            if ScenarioFile.isJSONSchema(file) {
                print("\(file): skipped: a JSON Schema, not a scenario")
                continue
            }
            switch ScenarioFile.load(file) {
            case .success(let scenario):
                print("\(file): ok: \"\(scenario.name)\", \(scenario.rules.count) rule\(scenario.rules.count == 1 ? "" : "s")")
            case .failure(let problems):
                failed = true
                for line in problems.lines {
                    FileHandle.standardError.write(Data("\(file):\(line)\n".utf8))
                }
            }
        }
        if failed { throw ExitCode(1) }
    }
}

/// Reading a scenario file from disk, shared by `serve --scenario` and `scenario validate`.
enum ScenarioFile {
    /// Why a file could not be used: unreadable, or each mistake in it.
    struct Problems: Error, CustomStringConvertible {
        /// `line:column: $.path: message`, one per mistake.
        var lines: [String]
        var description: String { lines.joined(separator: "\n") }
    }

    /// Whether the file is a JSON Schema rather than a scenario: its `"$schema"` names a
    /// json-schema.org meta-schema (a scenario's points at the scenario schema instead).
    static func isJSONSchema(_ path: String) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              case .object(let members)? = (try? JSONParser.parse(text))?.value,
              let schema = members.first(where: { $0.key == "$schema" }),
              case .string(let uri) = schema.value.value else { return false }
        return uri.contains("json-schema.org/")
    }

    static func load(_ path: String) -> Result<Scenario, Problems> {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return .failure(Problems(lines: [" cannot read the file: \(error.localizedDescription)"]))
        }
        let text: String
        do {
            text = try UTF8FileText.decode(Array(bytes))
        } catch {
            return .failure(Problems(lines: [" \(error)"]))
        }
        do {
            return .success(try Scenario.decode(jsonText: text))
        } catch {
            return .failure(Problems(lines: error.errors.map { "\($0.position.line):\($0.position.column): \($0.path): \($0.message)" }))
        }
    }
}
