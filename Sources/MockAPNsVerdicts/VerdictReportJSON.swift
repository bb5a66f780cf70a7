import MockAPNsCore
import MockAPNsJournal

/// `GET /v1/report`'s answer, which `mockapns report` reads back into the same
/// `VerdictReport`; findings in it take the journal's JSON form (`VerdictJSON`).
extension VerdictJSON {
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
                writer.string("title", outcome.rule.title(passed: outcome.passed))
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
        if report.relayedToUpstream + report.upstreamFailures > 0 {
            writer.beginObject("upstream")
            writer.integer("relayed", report.relayedToUpstream)
            writer.integer("failed", report.upstreamFailures)
            writer.integer("disagreements", report.disagreements.values.reduce(0, +))
            writer.beginArray("byAnswers")
            for (key, count) in report.disagreements.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                let (upstream, mockAPNs) = splitDisagreementKey(key)
                writer.beginObject()
                writer.string("upstream", upstream)
                writer.string("mockapns", mockAPNs)
                writer.integer("count", count)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endObject()
        return writer.text
    }

    /// The two answers a `VerdictReport.disagreementKey` names.
    private static func splitDisagreementKey(_ key: String) -> (upstream: String, mockAPNs: String) {
        let parts = key.split(separator: "; ", maxSplits: 1)
        let upstream = parts.first.map { String($0.dropFirst("upstream ".count)) } ?? key
        let mockAPNs = parts.count > 1 ? String(parts[1].dropFirst("MockAPNs ".count)) : ""
        return (upstream, mockAPNs)
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
        var report = VerdictReport(settings: settings, lastSequence: UInt64(lastSequence), missedEvents: UInt64(missed), providers: providers)
        if var upstream = try root.object("upstream") {
            report.relayedToUpstream = try count(&upstream, "relayed")
            report.upstreamFailures = try count(&upstream, "failed")
            _ = try upstream.integer("disagreements", in: 0...Int64.max)  // the sum of byAnswers
            for (path, node) in try upstream.array("byAnswers") ?? [] {
                var pair = try JSONObjectReader(node, path: path)
                let key = VerdictReport.disagreementKey(
                    upstream: try required(pair.string("upstream"), pair, "upstream", "the upstream's answer"),
                    mockAPNs: try required(pair.string("mockapns"), pair, "mockapns", "MockAPNs' own answer")
                )
                report.disagreements[key] = try count(&pair, "count")
                try pair.finish()
            }
            try upstream.finish()
        }
        try root.finish()
        return report
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
}
