/// The JSON forms of findings and reports, written and read here together: a `verdict`
/// journal event's `"verdict"` object, and `GET /v1/report`'s answer, which
/// `mockapns report` reads back into the same `VerdictReport`.
///
/// ```json
/// {"rule":"no-backoff","check":"retriedTooSoon",
///  "provider":{"kind":"providerToken","teamId":"TEAM00000A","keyId":"SANDBOX001"},
///  "message":"retried ... 2 ms after 503 ServiceUnavailable (minimum 100 ms)",
///  "deviceToken":"a1b2...","notifications":[12,15],"connections":[3],
///  "figures":{"delayMilliseconds":2,"minimumMilliseconds":100}}
/// ```
package enum VerdictJSON {
    // MARK: Findings

    package static func write(_ verdict: ProviderVerdict, key: String?, into writer: inout JSONWriter) {
        writer.beginObject(key)
        writer.string("rule", verdict.rule.rawValue)
        writer.string("check", verdict.check.rawValue)
        write(verdict.provider, into: &writer)
        writer.string("message", verdict.message)
        writer.string("deviceToken", verdict.deviceToken)
        writer.beginArray("notifications")
        for sequence in verdict.notifications { writer.integer(nil, sequence) }
        writer.endArray()
        writer.beginArray("connections")
        for connection in verdict.connections { writer.integer(nil, connection) }
        writer.endArray()
        if !verdict.figures.isEmpty {
            writer.beginObject("figures")
            for figure in verdict.figures { writer.integer(figure.name, figure.value) }
            writer.endObject()
        }
        writer.endObject()
    }

    package static func readVerdict(_ object: inout JSONObjectReader) throws(JSONFileError) -> ProviderVerdict {
        let check = try required(object.oneOf("check", VerdictCheck.self), object, "check", "a verdict check")
        if let rule = object.node("rule") {
            guard case .string(let text) = rule.value, text == check.rule.rawValue else {
                throw object.invalid("rule", rule, "expected \"\(check.rule.rawValue)\", the rule of check \(check.rawValue)")
            }
        }
        var providerObject = try required(object.object("provider"), object, "provider", "the provider")
        let verdict = ProviderVerdict(
            check: check, provider: try readIdentity(&providerObject),
            message: try required(object.string("message"), object, "message", "what happened"),
            deviceToken: try object.string("deviceToken"),
            notifications: try integers(&object, "notifications"), connections: try integers(&object, "connections"),
            figures: try figures(&object)
        )
        try object.finish()
        return verdict
    }

    static func write(_ provider: ProviderIdentity, into writer: inout JSONWriter) {
        writer.beginObject("provider")
        writer.string("kind", provider.kind)
        switch provider {
        case .certificate(let subject):
            writer.string("subject", subject)
        case .providerToken(let team, let key):
            writer.string("teamId", team)
            writer.string("keyId", key)
        case .unidentified:
            break
        }
        writer.string("name", provider.name)
        writer.endObject()
    }

    static func readIdentity(_ object: inout JSONObjectReader) throws(JSONFileError) -> ProviderIdentity {
        let kind = try required(object.string("kind"), object, "kind", "certificate, providerToken or unidentified")
        let identity: ProviderIdentity
        switch kind {
        case "certificate":
            identity = .certificate(subject: try required(object.string("subject"), object, "subject", "the certificate subject"))
        case "providerToken":
            identity = .providerToken(
                teamID: try required(object.string("teamId"), object, "teamId", "the team id"),
                keyID: try required(object.string("keyId"), object, "keyId", "the key id"))
        case "unidentified":
            identity = .unidentified
        default:
            throw JSONFileError(path: object.path(of: "kind"), position: object.position,
                                message: "unknown provider kind \"\(kind)\"; known: certificate, providerToken, unidentified")
        }
        _ = try object.string("name")  // follows from the rest
        try object.finish()
        return identity
    }

    // MARK: Reports

    /// The report as one JSON object.
    package static func encode(_ report: VerdictReport) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.integer("lastSequence", report.lastSequence)
        writer.integer("missedEvents", report.missedEvents)
        write(report.totals, key: "totals", into: &writer)
        writer.strings("brokenRules", VerdictRule.allCases.filter(report.brokenRules.contains).map(\.rawValue))
        report.settings.write(key: "settings", into: &writer)
        writer.beginArray("providers")
        for provider in report.providers {
            writer.beginObject()
            write(provider.provider, into: &writer)
            writer.integer("connections", provider.connections)
            write(provider.notifications, key: "notifications", into: &writer)
            let delays = provider.retryDelays
            writer.beginObject("retryDelays")
            writer.integer("count", delays.count)
            writer.integer("minimumMilliseconds", delays.minimum)
            writer.integer("medianMilliseconds", delays.median)
            writer.integer("maximumMilliseconds", delays.maximum)
            writer.beginArray("firstMilliseconds")
            for delay in delays.first { writer.integer(nil, delay) }
            writer.endArray()
            writer.endObject()
            writer.beginArray("rules")
            for outcome in provider.rules {
                writer.beginObject()
                writer.string("rule", outcome.rule.rawValue)
                writer.string("title", outcome.rule.title)
                writer.bool("passed", outcome.passed)
                writer.integer("findings", outcome.findings)
                writer.beginArray("examples")
                for example in outcome.examples { write(example, key: nil, into: &writer) }
                writer.endArray()
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.text
    }

    private static func write(_ tally: NotificationTally, key: String, into writer: inout JSONWriter) {
        writer.beginObject(key)
        writer.integer("tried", tally.tried)
        writer.integer("acceptedAtOnce", tally.acceptedAtOnce)
        writer.integer("acceptedAfterRetries", tally.acceptedAfterRetries)
        writer.integer("refused", tally.refused)
        writer.integer("lost", tally.lost)
        writer.integer("sentAgainAfterAcceptance", tally.sentAgainAfterAcceptance)
        writer.endObject()
    }

    /// A report from its JSON text (`GET /v1/report`).
    package static func decodeReport(_ text: String) throws(JSONFileError) -> VerdictReport {
        var root = try JSONObjectReader(JSONParser.parse(text))
        let lastSequence = try required(root.integer("lastSequence", in: 0...Int64.max), root, "lastSequence", "a sequence number")
        let missed = try required(root.integer("missedEvents", in: 0...Int64.max), root, "missedEvents", "a count")
        _ = root.node("totals")  // the providers' sum
        _ = try root.strings("brokenRules")  // follows from the providers
        var settings = VerdictSettings()
        if var object = try root.object("settings") { try settings.read(&object) }
        var providers: [ProviderReport] = []
        for (path, node) in try root.array("providers") ?? [] {
            var object = try JSONObjectReader(node, path: path)
            providers.append(try readProvider(&object))
        }
        try root.finish()
        return VerdictReport(settings: settings, lastSequence: UInt64(lastSequence), missedEvents: UInt64(missed), providers: providers)
    }

    private static func readProvider(_ object: inout JSONObjectReader) throws(JSONFileError) -> ProviderReport {
        var identity = try required(object.object("provider"), object, "provider", "the provider")
        let provider = try readIdentity(&identity)
        let connections = try required(object.integer("connections", in: 0...Int64(Int32.max)), object, "connections", "a count")
        var tallyObject = try required(object.object("notifications"), object, "notifications", "the notification counts")
        let tally = NotificationTally(
            acceptedAtOnce: try count(&tallyObject, "acceptedAtOnce"), acceptedAfterRetries: try count(&tallyObject, "acceptedAfterRetries"),
            refused: try count(&tallyObject, "refused"), lost: try count(&tallyObject, "lost"),
            sentAgainAfterAcceptance: try count(&tallyObject, "sentAgainAfterAcceptance")
        )
        _ = try tallyObject.integer("tried", in: 0...Int64.max)
        try tallyObject.finish()
        var delaysObject = try required(object.object("retryDelays"), object, "retryDelays", "the retry delays")
        let delays = RetryDelays(
            count: try count(&delaysObject, "count"),
            minimum: try delaysObject.integer("minimumMilliseconds", in: Int64.min...Int64.max),
            median: try delaysObject.integer("medianMilliseconds", in: Int64.min...Int64.max),
            maximum: try delaysObject.integer("maximumMilliseconds", in: Int64.min...Int64.max),
            first: try integers(&delaysObject, "firstMilliseconds").map { Int64(bitPattern: $0) }
        )
        try delaysObject.finish()
        var rules: [RuleOutcome] = []
        for (path, node) in try object.array("rules") ?? [] {
            var rule = try JSONObjectReader(node, path: path)
            let name = try required(rule.oneOf("rule", VerdictRule.self), rule, "rule", "a rule")
            _ = try rule.string("title")
            _ = try rule.bool("passed")
            var examples: [ProviderVerdict] = []
            for (examplePath, exampleNode) in try rule.array("examples") ?? [] {
                var example = try JSONObjectReader(exampleNode, path: examplePath)
                examples.append(try readVerdict(&example))
            }
            rules.append(RuleOutcome(rule: name, findings: try count(&rule, "findings"), examples: examples))
            try rule.finish()
        }
        try object.finish()
        return ProviderReport(provider: provider, connections: Int(connections), notifications: tally, retryDelays: delays, rules: rules)
    }

    // MARK: Helpers

    private static func count(_ object: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> Int {
        Int(try required(object.integer(key, in: 0...Int64(Int32.max)), object, key, "a count"))
    }

    /// An array of integers at `key` (signed values as their bit patterns).
    private static func integers(_ object: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> [UInt64] {
        var values: [UInt64] = []
        for (path, node) in try object.array(key) ?? [] {
            guard case .number(let text) = node.value else {
                throw JSONFileError(path: path, position: node.position, message: "expected an integer")
            }
            if let value = UInt64(text) {
                values.append(value)
            } else if let value = Int64(text) {
                values.append(UInt64(bitPattern: value))
            } else {
                throw JSONFileError(path: path, position: node.position, message: "expected an integer")
            }
        }
        return values
    }

    private static func figures(_ object: inout JSONObjectReader) throws(JSONFileError) -> [JournalFigure] {
        guard let node = object.node("figures") else { return [] }
        guard case .object(let members) = node.value else {
            throw object.invalid("figures", node, "expected an object of named numbers, found \(node.value.kindDescription)")
        }
        var figures: [JournalFigure] = []
        for member in members {
            guard case .number(let text) = member.value.value, let value = Int64(text) else {
                throw object.invalid("figures", member.value, "expected an integer for \"\(member.key)\"")
            }
            figures.append(JournalFigure(member.key, value))
        }
        return figures
    }

    private static func required<Value>(_ value: Value?, _ object: JSONObjectReader, _ key: String, _ expected: String) throws(JSONFileError) -> Value {
        guard let value else { throw object.missing(key, expected: expected) }
        return value
    }
}
