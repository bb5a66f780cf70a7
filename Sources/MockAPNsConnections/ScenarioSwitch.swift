import Logging
import MockAPNsCore
import MockAPNsJournal
import Synchronization
import MockAPNsScenario

/// The scenario a server runs now, replaceable while connections are open.
///
/// Each request asks for the current engine once and keeps the decision it gets, so a
/// replacement never changes the answer of a request already decided (a delayed answer
/// still goes out as decided). The new scenario starts with fresh counts, state and
/// connection numbers; its registry entries are applied on top of the registry's contents.
/// The rules added on top of it (`added`, a rule per test) are the switch's, handed to every
/// engine it makes, so a replacement keeps them.
package final class ScenarioSwitch: Sendable {
    private let engine: Mutex<ScenarioEngine>
    /// Rules added one at a time, tried before the running scenario's own.
    package let added: AddedScenarioRules
    private let registry: DeviceRegistry
    private let logger: Logger
    /// Carries out the rules that take devices offline or bring them online.
    private let deviceChanges: (@Sendable (ScenarioDeviceChange) -> Void)?

    /// What carries out a scenario rule's device change: a `delivery` event in the journal,
    /// recorded when the rule fires, so the delivery model applies it before the request's own
    /// notification (which is recorded after its answer).
    package static func deviceChangeRecorder(journal: Journal, clock: ServerClock) -> @Sendable (ScenarioDeviceChange) -> Void {
        { change in
            journal.record(.delivery(.device(change.deviceToken, online: change.online, at: clock.millisecondsSince1970, rule: change.rule)))
        }
    }

    package init(scenario: Scenario, registry: DeviceRegistry, logger: Logger, deviceChanges: (@Sendable (ScenarioDeviceChange) -> Void)? = nil) {
        let added = AddedScenarioRules()
        self.added = added
        self.engine = Mutex(ScenarioEngine(scenario: scenario, registry: registry, deviceChanges: deviceChanges, added: added))
        self.registry = registry
        self.logger = logger
        self.deviceChanges = deviceChanges
    }

    /// The engine requests are decided by now.
    package var current: ScenarioEngine { engine.withLock { $0 } }

    /// Applies the current scenario's registry entries (at server start) and says which
    /// scenario runs with which seed, so a surprising run can be replayed.
    package func applyRegistryState() {
        let engine = current
        engine.scenario.registry.apply(to: registry)
        guard engine.scenario != .empty else { return }
        logger.info("scenario loaded", metadata: [
            "scenario": "\(engine.scenario.name)", "rules": "\(engine.scenario.rules.count)", "seed": "\(engine.seed)",
        ])
    }

    /// Starts the running scenario over: fresh counts, its initial state, the same seed (so
    /// the same requests meet the same fates again), its registry entries applied anew.
    /// Returns the engine it replaced.
    package func restart() -> ScenarioEngine {
        let previous = engine.withLock { engine in
            defer { engine = ScenarioEngine(scenario: engine.scenario, seed: engine.seed, registry: registry, deviceChanges: deviceChanges,
                                           added: added) }
            return engine
        }
        previous.scenario.registry.apply(to: registry)
        return previous
    }

    /// Installs `scenario` for every request decided from now on.
    @discardableResult
    package func replace(with scenario: Scenario) -> ScenarioEngine {
        let next = ScenarioEngine(scenario: scenario, registry: registry, deviceChanges: deviceChanges, added: added)
        scenario.registry.apply(to: registry)
        engine.withLock { $0 = next }
        logger.info("scenario loaded", metadata: [
            "scenario": "\(scenario.name)", "rules": "\(scenario.rules.count)", "seed": "\(next.seed)",
        ])
        return next
    }
}
