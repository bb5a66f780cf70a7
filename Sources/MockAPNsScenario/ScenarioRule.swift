import MockAPNsCore
/// One rule: when it matches, what happens instead of (or besides) the core's verdict.
///
/// A rule with an `action` decides the answer; a rule with only a `delay` keeps the core's
/// verdict and sends it later. `times` limits how often the rule fires; `requiresState` and
/// `setsState` chain rules WireMock-style ("fail, fail, succeed").
///
/// Made in Swift from its builders (``reject(_:timestamp:)``, ``answer(status:reason:body:headers:)``,
/// then conditions such as ``forToken(_:)``), and added on top of the running scenario with
/// `MockAPNsServer.withRule(_:_:)` or `addRule(_:)`.
public struct ScenarioRule: Sendable, Equatable {
    /// The id the server gave the rule when it was added on top of the scenario (what
    /// `DELETE /v1/scenario/rules/{id}` names); `nil` for a rule not added.
    public package(set) var id: Int?
    /// For logs and the journal; defaults to `rules[i]`.
    package var name: String
    /// When the rule is tried relative to the decision core.
    package var stage: ScenarioStage
    /// What a request must look like for the rule to fire.
    package var match: ScenarioMatch
    /// What the rule does; `nil` keeps the core's verdict (useful with a delay).
    package var action: ScenarioAction?
    /// How long to wait before answering (or before the fault).
    package var delay: ScenarioDelay?
    /// Fire at most this many times; `nil` is unlimited.
    package var times: Int?
    /// Fire only while the scenario is in this named state.
    package var requiresState: String?
    /// Move the scenario to this named state when the rule fires.
    package var setsState: String?

    package init(
        name: String,
        stage: ScenarioStage = .afterValidation,
        match: ScenarioMatch = ScenarioMatch(),
        action: ScenarioAction? = nil,
        delay: ScenarioDelay? = nil,
        times: Int? = nil,
        requiresState: String? = nil,
        setsState: String? = nil
    ) {
        self.name = name
        self.stage = stage
        self.match = match
        self.action = action
        self.delay = delay
        self.times = times
        self.requiresState = requiresState
        self.setsState = setsState
    }

    /// Whether the rule is about connections rather than requests (it refuses handshakes).
    package var isConnectionRule: Bool {
        if case .refuseHandshake = action { return true }
        return false
    }
}

/// When a rule is tried.
///
/// The decision core authenticates and validates first (apns-protocol A.7 reasons), then
/// `afterValidation` rules see only the requests the core **accepted**: a scenario rejection
/// never hides a genuine client mistake. `beforeValidation` rules see every request before
/// the core does; when one fires with an action, the core is not consulted at all, so it can
/// accept a request the core would refuse, or fault a connection whatever it sends.
package enum ScenarioStage: String, Sendable, Equatable, CaseIterable {
    case beforeValidation
    case afterValidation
}
