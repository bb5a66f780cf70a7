import MockAPNsCore
import Synchronization

/// Rules added one at a time on top of the running scenario, a rule per test: each is tried
/// before the scenario's own rules of its stage, the newest first, and removed by the id it
/// was given. They belong to the server, not to a scenario: replacing the scenario keeps them
/// (with their firing counts), and only a removal or a reset of the server takes them away.
///
/// Thread-safe. The engine asks `hasRequestRules` for every request, one atomic load, so a
/// server with no added rules pays nothing more per request than before they existed.
package final class AddedScenarioRules: Sendable {
    /// One added rule and the id it is removed by.
    package struct Entry: Sendable, Equatable {
        /// Given when the rule was added, never reused.
        package var id: Int
        package var rule: ScenarioRule

        package init(id: Int, rule: ScenarioRule) {
            self.id = id
            self.rule = rule
        }
    }

    /// An added rule and how many times it has fired.
    package struct Firing: Sendable, Equatable {
        package var entry: Entry
        package var fired: Int
    }

    private struct State {
        /// Newest first: the order they are tried in.
        var entries: [Entry] = []
        var fired: [Int: Int] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())
    /// How many added rules match requests (not connections), and how many of those read the
    /// payload: what the engine and a request's payload examination ask without the lock.
    private let requestRuleCount = Atomic<Int>(0)
    private let payloadRuleCount = Atomic<Int>(0)
    private let connectionRuleCount = Atomic<Int>(0)

    package init() {}

    /// Whether any added rule matches requests.
    package var hasRequestRules: Bool { requestRuleCount.load(ordering: .acquiring) > 0 }

    /// Whether any added rule matches the payload.
    package var readsPayload: Bool { payloadRuleCount.load(ordering: .acquiring) > 0 }

    /// Whether any added rule refuses handshakes.
    package var hasConnectionRules: Bool { connectionRuleCount.load(ordering: .acquiring) > 0 }

    /// The added rules, newest first.
    package var entries: [Entry] { state.withLock { $0.entries } }

    /// The added rules, newest first, each with how often it fired.
    package var firings: [Firing] {
        state.withLock { state in state.entries.map { Firing(entry: $0, fired: state.fired[$0.id] ?? 0) } }
    }

    /// Adds `rule` on top of the others and returns it with its id. A rule without a name is
    /// named after its id (`added[3]`), which the journal's records of its firings carry.
    @discardableResult
    package func add(_ rule: ScenarioRule) -> Entry {
        let entry = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            var named = rule
            named.id = id
            if named.name.isEmpty { named.name = "added[\(id)]" }
            let entry = Entry(id: id, rule: named)
            state.entries.insert(entry, at: 0)
            counting(entry.rule, by: 1)
            return entry
        }
        return entry
    }

    /// Removes the rule added with `id`; `nil` when there is none (never added, or removed).
    @discardableResult
    package func remove(id: Int) -> Entry? {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
            let entry = state.entries.remove(at: index)
            state.fired[id] = nil
            counting(entry.rule, by: -1)
            return entry
        }
    }

    /// Removes every added rule; returns how many there were.
    @discardableResult
    package func removeAll() -> Int {
        state.withLock { state in
            let count = state.entries.count
            for entry in state.entries { counting(entry.rule, by: -1) }
            state.entries = []
            state.fired = [:]
            return count
        }
    }

    /// Fires the first of `candidates` (ids, in the order tried) still available in the named
    /// state `named`: it has `times` left and requires no other state. Returns the one fired.
    /// Called under the engine's lock, which is always taken before this one.
    func fireFirstAvailable(_ candidates: [Int], named: String) -> Entry? {
        state.withLock { state in
            for id in candidates {
                guard let entry = state.entries.first(where: { $0.id == id }) else { continue }
                let fired = state.fired[id] ?? 0
                if let times = entry.rule.times, fired >= times { continue }
                if let required = entry.rule.requiresState, required != named { continue }
                state.fired[id] = fired + 1
                return entry
            }
            return nil
        }
    }

    private func counting(_ rule: ScenarioRule, by change: Int) {
        if rule.isConnectionRule {
            connectionRuleCount.add(change, ordering: .releasing)
            return
        }
        requestRuleCount.add(change, ordering: .releasing)
        if !rule.match.payload.isEmpty { payloadRuleCount.add(change, ordering: .releasing) }
    }
}
