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

// MARK: Rules added on top of the scenario

extension MockAPNsServer {
    /// Adds `rule` on top of the running scenario: it is tried before the scenario's own rules
    /// (the newest added first), and stays when the scenario is replaced, until it is removed
    /// or the server is reset. Returns the rule as stored, its ``ScenarioRule/id`` set.
    ///
    /// The rule is checked by the scenario file's decoder; one it refuses changes nothing.
    @discardableResult
    public func addRule(_ rule: ScenarioRule) throws(ScenarioDecodingError) -> ScenarioRule {
        let checked = try ScenarioRule.decode(jsonText: rule.jsonText)
        return scenarios.added.add(checked).rule
    }

    /// Removes a rule ``addRule(_:)`` added; whether it was still there.
    @discardableResult
    public func removeRule(_ rule: ScenarioRule) -> Bool {
        guard let id = rule.id else { return false }
        return scenarios.added.remove(id: id) != nil
    }

    /// The rules added on top of the scenario, newest (tried first) first.
    public var addedRules: [ScenarioRule] { scenarios.added.entries.map(\.rule) }

    /// Runs `body` with `rule` added on top of the running scenario, and removes it when
    /// `body` returns or throws: a rule for one test.
    ///
    /// ```swift
    /// try await server.withRule(.reject(.unregistered).forToken(token)) {
    ///     // pushes to `token` are answered 410 here
    /// }
    /// ```
    public func withRule<Result>(
        _ rule: ScenarioRule, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async throws -> Result {
        let added = try addRule(rule)
        defer { removeRule(added) }
        return try await body()
    }

    /// The rules added on top of the scenario, for the control API.
    package var addedScenarioRules: AddedScenarioRules { scenarios.added }
}
