import MockAPNsCore
import MockAPNsWire

/// Upstream mode's recording (`serve --record-scenario FILE`): the answers the real service
/// gave that MockAPNs' own rules would not have given, one rule per device token and topic,
/// which replay them offline as a scenario.
///
/// Each rule answers what the upstream answered, as it answered it: its status, its header
/// fields, its body byte for byte (a 410's timestamp, a refusal's reason). Left out are the
/// fields that name one request and not the token's state, which the replaying server makes
/// anew for each request as Apple does: `apns-id` (the request's own, or a new one) and
/// `apns-unique-id`. A rule replays on HTTP/2 only, where it was recorded.
///
/// The rule of a request MockAPNs' core accepted is tried after validation, so a malformed
/// request to the same token still gets Apple's validation answer; the rule of a request the
/// core refused is tried before validation, since the upstream's answer is the one to replay.
/// A later answer to the same token and topic replaces the rule; a later answer MockAPNs'
/// own rules agree with removes it, since the token's state is then MockAPNs' own again.
package struct RecordedAnswers: Sendable, Equatable {
    /// The recorded scenario's name.
    package let name: String
    /// The rules, in the order their token and topic were first recorded.
    package private(set) var rules: [ScenarioRule] = []

    /// Fields the replaying server makes for each request: never recorded.
    package static let perRequestFields: Set<String> = ["apns-id", "apns-unique-id"]

    package init(name: String) {
        self.name = name
    }

    /// The scenario that replays the recorded answers.
    package var scenario: Scenario {
        Scenario(
            name: name,
            description: "Answers an upstream APNs gave that MockAPNs' own rules would not, recorded by mockapns serve --record-scenario",
            rules: rules
        )
    }

    /// One answer the upstream gave to a device push to `token` for `topic`, beside whether
    /// MockAPNs' own rules would have given it (`disagrees`) and whether they accepted the
    /// request (`coreAccepted`). Returns whether the rules changed, and why an answer that
    /// differs could not be recorded (a body that is not UTF-8 text, a field a scenario
    /// cannot script).
    package mutating func observe(
        token: String, topic: String?, status: Int, headers: [HTTPHeader], body: [UInt8], disagrees: Bool, coreAccepted: Bool
    ) -> (changed: Bool, problem: String?) {
        let token = token.lowercased()
        let index = rules.firstIndex { Self.isRule($0, for: token, topic: topic) }
        guard disagrees else {
            guard let index else { return (false, nil) }
            rules.remove(at: index)
            return (true, nil)
        }
        guard (200...599).contains(status) else { return (false, "status \(status) is not a final answer a scenario can script") }
        guard let text = String(validating: body, as: UTF8.self) else { return (false, "its body is not UTF-8 text") }
        var kept: [HTTPHeader] = []
        for header in headers where !Self.perRequestFields.contains(header.name) {
            if let problem = ResponseHeaderRules.problem(withName: header.name) ?? ResponseHeaderRules.problem(withValue: header.value) {
                return (false, problem)
            }
            kept.append(header)
        }
        let reason = ErrorBodyReason.reason(in: text)
        let rule = ScenarioRule(
            name: "recorded \(status)\(reason.map { " " + $0 } ?? "") for \(token) on \(topic ?? "no topic")",
            stage: coreAccepted ? .afterValidation : .beforeValidation,
            match: ScenarioMatch(protocols: [.http2], tokens: [token], topics: topic.map { [$0] }),
            action: .respond(ScenarioResponse(status: status, headers: kept, body: body.isEmpty ? nil : text))
        )
        if let index {
            guard rules[index] != rule else { return (false, nil) }
            rules[index] = rule
        } else {
            rules.append(rule)
        }
        return (true, nil)
    }

    /// Whether `rule` is the recorded rule of `token` and `topic`.
    private static func isRule(_ rule: ScenarioRule, for token: String, topic: String?) -> Bool {
        rule.match.tokens == [token] && rule.match.topics == topic.map { [$0] }
    }
}

/// The `reason` of an APNs error body, for a recorded rule's name.
private enum ErrorBodyReason {
    static func reason(in body: String) -> String? {
        guard let root = try? JSONParser.parse(body), case .object(let members) = root.value,
              let member = members.first(where: { $0.key == "reason" }), case .string(let reason) = member.value.value
        else { return nil }
        return reason
    }
}
