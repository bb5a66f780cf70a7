import MockAPNsCore
import MockAPNsWire

extension Scenario {
    /// The scenario as the JSON a scenario file holds: what `init(jsonText:)` reads back into an
    /// equal scenario. Keys come in the schema's order, sets sorted, and a value the decoder
    /// would take as its default is left out; one rule per line, so a written file reads (and
    /// diffs) rule by rule.
    package var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("name", name)
        writer.string("description", description)
        writer.integer("seed", seed)
        if initialState != Scenario.defaultInitialState { writer.string("initialState", initialState) }
        if registry != ScenarioRegistryState() { ScenarioEncoder.registry(registry, into: &writer) }
        if connection != ScenarioConnectionSettings() { ScenarioEncoder.connection(connection, into: &writer) }
        writer.raw("rules", json: ScenarioEncoder.rules(rules))
        writer.endObject()
        return writer.text + "\n"
    }
}

/// Writes the scenario-wide parts of the model in the form `ScenarioDecoder` reads; each rule
/// writes itself (`ScenarioRule.jsonText`).
enum ScenarioEncoder {
    /// `[` and `]` on lines of their own, one rule a line between them.
    static func rules(_ rules: [ScenarioRule]) -> String {
        guard !rules.isEmpty else { return "[]" }
        let lines = rules.map { "  " + $0.jsonText }
        return "[\n" + lines.joined(separator: ",\n") + "\n]"
    }

    static func registry(_ registry: ScenarioRegistryState, into writer: inout JSONWriter) {
        func tokenTimes(_ key: String, _ entries: [ScenarioRegistryState.TokenSince]) {
            guard !entries.isEmpty else { return }
            writer.beginArray(key)
            for entry in entries {
                writer.beginObject()
                writer.string("token", entry.token)
                writer.integer("since", entry.since)
                writer.string("topic", entry.topic)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.beginObject("registry")
        tokenTimes("unregistered", registry.unregistered)
        tokenTimes("expired", registry.expired)
        if !registry.topics.isEmpty {
            writer.beginArray("topics")
            for entry in registry.topics {
                writer.beginObject()
                writer.string("token", entry.token)
                writer.strings("topics", entry.topics)
                writer.endObject()
            }
            writer.endArray()
        }
        tokenTimes("feedback", registry.feedback)
        if !registry.environments.isEmpty {
            writer.beginArray("environments")
            for entry in registry.environments {
                writer.beginObject()
                writer.string("token", entry.token)
                writer.string("environment", entry.environment.rawValue)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
    }

    static func connection(_ settings: ScenarioConnectionSettings, into writer: inout JSONWriter) {
        writer.beginObject("connection")
        writer.integer("maxConcurrentStreams", settings.maxConcurrentStreams)
        if let seconds = settings.idleTimeoutSeconds { writer.raw("idleTimeoutSeconds", json: ScenarioRule.number(seconds)) }
        writer.integer("goAwayAfterRequests", settings.goAwayAfterRequests)
        writer.endObject()
    }
}
