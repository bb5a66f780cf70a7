import MockAPNsCore
import MockAPNsJournal

/// Findings on one connection whose provider is not known yet: the first few of each rule
/// kept whole, the rest counted.
struct PendingFindings: Sendable {
    var kept: [ProviderVerdict] = []
    var keptPerRule: [VerdictRule: Int] = [:]
    var counted: [VerdictRule: Int] = [:]

    mutating func add(_ verdict: ProviderVerdict, keepingPerRule limit: Int) {
        let rule = verdict.rule
        if keptPerRule[rule, default: 0] < limit {
            keptPerRule[rule, default: 0] += 1
            kept.append(verdict)
        } else {
            counted[rule, default: 0] += 1
        }
    }
}
