// The running scenario: the switch that swaps it, the server's API over it, and the faults
// it carries out on the wire (a refused handshake, garbage, a cut connection).

import MockAPNsCore
import MockAPNsScenario

extension MockAPNsServer {
    /// The scenario deciding requests now.
    public var currentScenario: Scenario { scenarios.current.scenario }

    /// The engine running the current scenario: its seed, named state and firing counts.
    package var scenarioEngine: ScenarioEngine { scenarios.current }

    /// Runs `scenario` for every request decided from now on, with fresh counts and state.
    /// Requests already decided keep their decision, including delayed answers not yet sent;
    /// open connections stay open. The scenario's registry entries are applied at once.
    public func replaceScenario(_ scenario: Scenario) {
        scenarios.replace(with: scenario)
    }

    /// Decodes a scenario file's text and runs it, as ``replaceScenario(_:)``. A broken file
    /// changes nothing and throws every mistake with its JSON path, line and column.
    public func replaceScenario(jsonText: String) throws(ScenarioDecodingError) {
        replaceScenario(try Scenario.decode(jsonText: jsonText))
    }
}
