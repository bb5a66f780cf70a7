import MockAPNsWire
import Synchronization
import MockAPNsCore

/// Runs one scenario: numbers connections and requests, tries the rules in order, and keeps
/// the counts that `times` and the named state depend on. Thread-safe; one engine serves
/// every connection of every protocol.
///
/// ## The order of decisions for one request
///
/// 1. The request is numbered (globally, on its connection, and for its token). Every
///    request counts, whatever becomes of it.
/// 2. `beforeValidation` rules are tried in order. The first that fires with an action
///    decides, and the decision core is not consulted.
/// 3. Otherwise the decision core authenticates and validates (`PushDecider`).
/// 4. If the core **accepted** the request, `afterValidation` rules are tried in order; the
///    first that fires decides. A core rejection is never overridden here: a scenario adds
///    failures, it does not hide the client's mistakes.
///
/// At most one rule fires per request. A rule fires when its matchers hold, it has `times`
/// left, the named state is the one it requires, and its probability draw succeeds. Firing
/// counts one use and may move the named state.
package final class ScenarioEngine: Sendable {
    package let scenario: Scenario
    /// The seed in use: the scenario's, or one picked at random when it has none.
    package let seed: UInt64

    private let state: Mutex<State>
    private let hasRequestRules: Bool
    private let scenarioReadsPayload: Bool
    /// The rules added on top of the scenario (a rule per test), tried before its own; shared
    /// by every engine of one server, so they outlive a replaced scenario.
    package let added: AddedScenarioRules?

    /// Whether a request rule matches on the payload: a request's examination of its payload
    /// then keeps its JSON value for the rules (`ScenarioRequest.payloadJSON`).
    package var readsPayload: Bool { scenarioReadsPayload || added?.readsPayload == true }
    /// Where `limitRate` rules set a token's window; `nil` ignores them.
    private let registry: DeviceRegistry?
    /// Told when a rule takes a device offline or brings it online (`setDevice`), after the
    /// engine's lock is released and before the request is answered.
    private let deviceChanges: (@Sendable (ScenarioDeviceChange) -> Void)?

    private struct State {
        var requests = 0
        var requestsPerToken: [String: Int] = [:]
        var connections: [Transport: Int] = [:]
        var firings: [Int]
        var named: String
    }

    /// What a rule that fired asks for.
    private struct Firing {
        var rule: ScenarioRule
        var delay: Double?
        var garbage: [UInt8]?
    }

    /// An engine for `scenario`, seeded with the scenario's seed or a random one.
    /// `registry` is where `limitRate` rules act; `deviceChanges` carries out the rules that
    /// take devices offline or online.
    package convenience init(
        scenario: Scenario, registry: DeviceRegistry? = nil, deviceChanges: (@Sendable (ScenarioDeviceChange) -> Void)? = nil,
        added: AddedScenarioRules? = nil
    ) {
        var system = SystemRandomNumberGenerator()
        self.init(scenario: scenario, seed: scenario.seed ?? system.next(), registry: registry, deviceChanges: deviceChanges, added: added)
    }

    /// An engine for `scenario` drawing from `seed`: a restart with the seed of an earlier
    /// engine meets the same fates for the same requests. `registry` is where `limitRate`
    /// rules act; `deviceChanges` carries out the rules that take devices offline or online;
    /// `added` rules are tried before the scenario's.
    package init(
        scenario: Scenario, seed: UInt64, registry: DeviceRegistry? = nil,
        deviceChanges: (@Sendable (ScenarioDeviceChange) -> Void)? = nil, added: AddedScenarioRules? = nil
    ) {
        self.scenario = scenario
        self.seed = seed
        self.registry = registry
        self.deviceChanges = deviceChanges
        self.added = added
        self.state = Mutex(State(firings: Array(repeating: 0, count: scenario.rules.count), named: scenario.initialState))
        self.hasRequestRules = scenario.rules.contains { !$0.isConnectionRule }
        self.scenarioReadsPayload = scenario.rules.contains { !$0.isConnectionRule && !$0.match.payload.isEmpty }
    }

    /// The named state rules are in now.
    package var currentState: String { state.withLock { $0.named } }

    /// How many times each rule has fired, in rule order.
    package var firingCounts: [Int] { state.withLock { $0.firings } }

    /// How many requests the engine has numbered (every request counts, whatever its fate).
    package var requestCount: Int { state.withLock { $0.requests } }

    // MARK: Connections

    /// What happens to a new connection.
    package struct ConnectionOpening: Sendable, Equatable {
        package var connection: ScenarioConnection
        /// Refuse the TLS handshake with this alert.
        package var refusal: TLSAlert?
        /// The rule that refused it.
        package var rule: String?
    }

    /// Numbers a new connection and tries the handshake-refusing rules on it.
    package func openConnection(_ transport: Transport) -> ConnectionOpening {
        let addedRules = added?.hasConnectionRules == true ? added?.entries ?? [] : []
        return state.withLock { state in
            let index = (state.connections[transport] ?? 0) + 1
            state.connections[transport] = index
            let connection = ScenarioConnection(transport: transport, index: index)
            var opening = ConnectionOpening(connection: connection)
            for entry in addedRules {
                guard case .refuseHandshake(let alert) = entry.rule.action, entry.rule.match.matches(connection: connection) else { continue }
                var random = SeededRandom(seed: seed, stream: Self.stream(request: 0, connection: index, rule: Self.addedRuleStream(entry.id)))
                if let probability = entry.rule.match.probability, random.nextUnit() >= probability { continue }
                guard let fired = added?.fireFirstAvailable([entry.id], named: state.named) else { continue }
                if let next = fired.rule.setsState { state.named = next }
                opening.refusal = alert
                opening.rule = fired.rule.name
                return opening
            }
            for (ruleIndex, rule) in scenario.rules.enumerated() {
                guard case .refuseHandshake(let alert) = rule.action,
                      rule.match.matches(connection: connection),
                      Self.isAvailable(rule, ruleIndex, state) else { continue }
                var random = SeededRandom(seed: seed, stream: Self.stream(request: 0, connection: index, rule: ruleIndex))
                if let probability = rule.match.probability, random.nextUnit() >= probability { continue }
                Self.fire(rule, ruleIndex, &state)
                opening.refusal = alert
                opening.rule = rule.name
                break
            }
            return opening
        }
    }

    // MARK: Requests

    /// Decides one request. `core` runs the decision core; it is called at most once, and
    /// never while the engine's lock is held. `request` is only read when the scenario has
    /// request rules, so a server without a scenario pays nothing for gathering its facts.
    package func decide(
        _ request: @autoclosure () -> ScenarioRequest, connection: inout ScenarioConnection, core: () -> Verdict
    ) -> ScenarioDecision {
        connection.requestCount += 1
        let connectionNumber = connection.requestCount
        guard hasRequestRules || added?.hasRequestRules == true else {
            // Nothing to match: only the connection's own count matters (goAwayAfterRequests).
            return ScenarioDecision(numbers: ScenarioRequestNumbers(global: 0, connection: connectionNumber, token: 0),
                                    coreVerdict: core())
        }
        let request = request()
        let current = connection
        let token = request.deviceToken?.lowercased() ?? ""
        let numbers = state.withLock { state in
            state.requests += 1
            let tokenNumber = (state.requestsPerToken[token] ?? 0) + 1
            state.requestsPerToken[token] = tokenNumber
            return ScenarioRequestNumbers(global: state.requests, connection: connectionNumber, token: tokenNumber)
        }
        var payload = ParsedPayload(request)
        let early = firstFiring(.beforeValidation, request, numbers, current, &payload)
        if let early {
            applyRegistryEffect(of: early.rule, to: request)
        }
        if let early, early.rule.action?.decidesTheAnswer == true {
            return decision(early, numbers: numbers, coreVerdict: nil, token: request.deviceToken)
        }
        let verdict = core()
        if let early {
            // A before-validation rule with only a delay, one that set a rate window, or a
            // device change: the core's verdict (later, for a delay).
            return decision(early, numbers: numbers, coreVerdict: verdict, token: request.deviceToken)
        }
        guard case .accepted = verdict else {
            return ScenarioDecision(numbers: numbers, coreVerdict: verdict)
        }
        let late = firstFiring(.afterValidation, request, numbers, current, &payload)
        guard let late else { return ScenarioDecision(numbers: numbers, coreVerdict: verdict) }
        applyRegistryEffect(of: late.rule, to: request)
        return decision(late, numbers: numbers, coreVerdict: verdict, token: request.deviceToken)
    }

    /// The decision a firing makes; a device change it asks for is carried out here, outside
    /// the engine's lock.
    private func decision(_ firing: Firing, numbers: ScenarioRequestNumbers, coreVerdict: Verdict?, token: String?) -> ScenarioDecision {
        if case .setDevice(let online)? = firing.rule.action, let token, !token.isEmpty {
            deviceChanges?(ScenarioDeviceChange(deviceToken: token, online: online, rule: firing.rule.name))
        }
        return decision(firing, numbers: numbers, coreVerdict: coreVerdict)
    }

    /// A `limitRate` rule sets the request's token's window; outside the engine's lock.
    private func applyRegistryEffect(of rule: ScenarioRule, to request: ScenarioRequest) {
        guard case .limitRate(let window)? = rule.action, let registry, let token = request.deviceToken, !token.isEmpty else { return }
        registry.limitPushes(token, to: window)
    }

    private func decision(_ firing: Firing, numbers: ScenarioRequestNumbers, coreVerdict: Verdict?) -> ScenarioDecision {
        ScenarioDecision(rule: firing.rule.name, action: firing.rule.action, delayMilliseconds: firing.delay,
                         numbers: numbers, coreVerdict: coreVerdict, garbage: firing.garbage)
    }

    /// The first rule of `stage` that fires for the request, counted as fired.
    ///
    /// Whether a rule matches the request (its headers, its payload) and passes its
    /// probability depends on the request alone, so it is worked out before the engine's lock
    /// is taken; under the lock only what the engine's state says is decided: the first of
    /// those rules still available (`times`, `requiresState`) fires.
    private func firstFiring(
        _ stage: ScenarioStage, _ request: ScenarioRequest, _ numbers: ScenarioRequestNumbers, _ connection: ScenarioConnection,
        _ payload: inout ParsedPayload
    ) -> Firing? {
        // Added rules first, newest first: they sit on top of the scenario's.
        var addedMatching: [Int] = []
        if let added, added.hasRequestRules {
            for entry in added.entries {
                let stream = Self.stream(request: numbers.global, connection: 0, rule: Self.addedRuleStream(entry.id))
                if fires(entry.rule, stage, request, numbers, connection, &payload, stream: stream) { addedMatching.append(entry.id) }
            }
        }
        var matching: [Int] = []
        for (index, rule) in scenario.rules.enumerated() {
            let stream = Self.stream(request: numbers.global, connection: 0, rule: index)
            if fires(rule, stage, request, numbers, connection, &payload, stream: stream) { matching.append(index) }
        }
        guard !matching.isEmpty || !addedMatching.isEmpty else { return nil }
        let fired: (rule: ScenarioRule, stream: Int)? = state.withLock { state in
            if !addedMatching.isEmpty, let entry = added?.fireFirstAvailable(addedMatching, named: state.named) {
                if let next = entry.rule.setsState { state.named = next }
                return (entry.rule, Self.addedRuleStream(entry.id))
            }
            for index in matching where Self.isAvailable(scenario.rules[index], index, state) {
                Self.fire(scenario.rules[index], index, &state)
                return (scenario.rules[index], index)
            }
            return nil
        }
        guard let (rule, ruleStream) = fired else { return nil }
        // The same random stream as the probability's draw, so the delay and the garbage
        // come from the draws after it, as they always have.
        var random = SeededRandom(seed: seed, stream: Self.stream(request: numbers.global, connection: 0, rule: ruleStream))
        if rule.match.probability != nil { _ = random.nextUnit() }
        var firing = Firing(rule: rule)
        firing.delay = rule.delay?.sample(using: &random)
        if case .fault(.sendGarbage(let garbage)) = rule.action, garbage.bytes == nil {
            firing.garbage = (0..<garbage.length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        return firing
    }

    /// Whether `rule` is of `stage`, matches the request and passes its probability draw
    /// (from `stream`): what can be known before the engine's lock is taken.
    private func fires(
        _ rule: ScenarioRule, _ stage: ScenarioStage, _ request: ScenarioRequest, _ numbers: ScenarioRequestNumbers,
        _ connection: ScenarioConnection, _ payload: inout ParsedPayload, stream: UInt64
    ) -> Bool {
        guard rule.stage == stage, !rule.isConnectionRule,
              rule.match.matches(request, numbers: numbers, connection: connection, payload: &payload) else { return false }
        var random = SeededRandom(seed: seed, stream: stream)
        if let probability = rule.match.probability, random.nextUnit() >= probability { return false }
        return true
    }

    private static func isAvailable(_ rule: ScenarioRule, _ index: Int, _ state: State) -> Bool {
        if let times = rule.times, state.firings[index] >= times { return false }
        if let required = rule.requiresState, required != state.named { return false }
        return true
    }

    private static func fire(_ rule: ScenarioRule, _ index: Int, _ state: inout State) {
        state.firings[index] += 1
        if let next = rule.setsState { state.named = next }
    }

    /// The rule number of an added rule's random streams: apart from the scenario's own rules
    /// (numbered from 0), so adding a rule leaves the scenario's draws as they were.
    private static func addedRuleStream(_ id: Int) -> Int { 0x8000 | (id & 0x7FFF) }

    /// The random stream of one (request or connection, rule) pair.
    /// Requests and connections use disjoint streams (the top bit tells them apart).
    private static func stream(request: Int, connection: Int, rule: Int) -> UInt64 {
        let rulePart = UInt64(truncatingIfNeeded: rule) & 0xFFFF
        if connection > 0 {
            return 1 << 63 | UInt64(truncatingIfNeeded: connection) << 16 | rulePart
        }
        return UInt64(truncatingIfNeeded: request) << 16 | rulePart
    }
}

/// A device a scenario rule takes offline or brings online (`deviceOffline`, `deviceOnline`).
package struct ScenarioDeviceChange: Sendable, Equatable {
    package var deviceToken: String
    package var online: Bool
    /// The rule's name.
    package var rule: String

    package init(deviceToken: String, online: Bool, rule: String) {
        self.deviceToken = deviceToken
        self.online = online
        self.rule = rule
    }
}
