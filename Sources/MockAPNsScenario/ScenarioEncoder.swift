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

/// Writes each part of the scenario model in the form `ScenarioDecoder` reads.
enum ScenarioEncoder {
    /// `[` and `]` on lines of their own, one rule a line between them.
    static func rules(_ rules: [ScenarioRule]) -> String {
        guard !rules.isEmpty else { return "[]" }
        let lines = rules.map { rule -> String in
            var writer = JSONWriter()
            self.rule(rule, into: &writer)
            return "  " + writer.text
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]"
    }

    static func rule(_ rule: ScenarioRule, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.string("name", rule.name)
        // A rate window's rule is tried before validation unless the file says otherwise.
        var defaultStage = ScenarioStage.afterValidation
        if case .limitRate? = rule.action { defaultStage = .beforeValidation }
        if rule.stage != defaultStage { writer.string("stage", rule.stage.rawValue) }
        if rule.match != ScenarioMatch() { match(rule.match, into: &writer) }
        if let action = rule.action { self.action(action, into: &writer) }
        if let delay = rule.delay { self.delay(delay, into: &writer) }
        writer.integer("times", rule.times)
        writer.string("requiresState", rule.requiresState)
        writer.string("setsState", rule.setsState)
        writer.endObject()
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
        if let seconds = settings.idleTimeoutSeconds { writer.raw("idleTimeoutSeconds", json: number(seconds)) }
        writer.integer("goAwayAfterRequests", settings.goAwayAfterRequests)
        writer.endObject()
    }

    static func match(_ match: ScenarioMatch, into writer: inout JSONWriter) {
        writer.beginObject("match")
        writer.strings("protocols", match.protocols.map { $0.map(\.rawValue).sorted() })
        writer.strings("tokens", match.tokens.map { $0.sorted() })
        writer.strings("topics", match.topics.map { $0.sorted() })
        writer.strings("pushTypes", match.pushTypes.map { $0.sorted() })
        if let priorities = match.priorities {
            writer.beginArray("priorities")
            for priority in priorities.sorted() { writer.integer(nil, priority) }
            writer.endArray()
        }
        if let authentication = match.authentication {
            writer.beginObject("authentication")
            writer.string("kind", authentication.kind?.rawValue)
            writer.string("teamId", authentication.teamID)
            writer.string("keyId", authentication.keyID)
            writer.endObject()
        }
        if let size = match.payloadSize {
            writer.beginObject("payloadSize")
            writer.integer("min", size.min)
            writer.integer("max", size.max)
            writer.endObject()
        }
        if !match.payload.isEmpty {
            writer.beginArray("payload")
            for entry in match.payload {
                writer.beginObject()
                writer.string("path", entry.path.joined(separator: "."))
                if let equals = entry.equals { writer.value("equals", equals) }
                writer.bool("exists", entry.exists)
                writer.endObject()
            }
            writer.endArray()
        }
        if let index = match.requestIndex {
            writer.beginObject("requestIndex")
            if index.scope != .global { writer.string("scope", index.scope.rawValue) }
            writer.integer("min", index.range.min)
            writer.integer("max", index.range.max)
            writer.integer("every", index.every)
            writer.endObject()
        }
        if let index = match.connectionIndex {
            writer.beginObject("connectionIndex")
            writer.integer("min", index.min)
            writer.integer("max", index.max)
            writer.endObject()
        }
        if let probability = match.probability { writer.raw("probability", json: number(probability)) }
        writer.strings("channels", match.channels.map { $0.sorted() })
        writer.strings("channelOperations", match.channelOperations.map { $0.map(\.rawValue).sorted() })
        writer.endObject()
    }

    static func action(_ action: ScenarioAction, into writer: inout JSONWriter) {
        writer.beginObject("action")
        writer.string("type", ScenarioDecoder.ActionType(of: action).rawValue)
        switch action {
        case .accept, .setDevice:
            break
        case .reject(let reason, let timestamp):
            writer.string("reason", reason.rawValue)
            writer.integer("timestamp", timestamp)
        case .respond(let response):
            writer.integer("status", response.status)
            if !response.headers.isEmpty {
                writer.beginObject("headers")
                for header in response.headers { writer.string(header.name, header.value) }
                writer.endObject()
            }
            writer.string("body", response.body)
            writer.string("reason", response.reason)
            writer.integer("legacyStatus", response.legacyStatus?.rawValue)
        case .refuseHandshake(let alert):
            writer.integer("alert", alert.code)
        case .limitRate(let window):
            writer.integer("pushes", window.pushes)
            writer.raw("perSeconds", json: number(Double(window.perMilliseconds) / 1000))
        case .fault(let fault):
            self.fault(fault, into: &writer)
        }
        writer.endObject()
    }

    private static func fault(_ fault: ScenarioFault, into writer: inout JSONWriter) {
        switch fault {
        case .closeConnection, .resetConnection, .stall, .shutdown:
            break
        case .goAway(let goAway):
            writer.integer("errorCode", goAway.errorCode)
            switch goAway.lastStream {
            case .lastReceived: break
            case .current: writer.string("lastStreamId", "current")
            case .id(let id): writer.integer("lastStreamId", id)
            }
            writer.string("reason", goAway.reason)
            writer.string("debugData", goAway.debugData)
            if !goAway.closeConnection { writer.bool("closeConnection", false) }
            if goAway.answerRequest { writer.bool("answerRequest", true) }
        case .resetStream(let errorCode):
            writer.integer("errorCode", errorCode)
        case .lowerMaxConcurrentStreams(let limit):
            writer.integer("limit", limit)
        case .sendGarbage(let garbage):
            if let bytes = garbage.bytes {
                writer.string("hex", String(decoding: bytes.flatMap { [HexDigits.digit($0 >> 4, uppercase: false), HexDigits.digit($0 & 0x0F, uppercase: false)] }, as: UTF8.self))
            } else {
                writer.integer("length", garbage.length)
            }
            if garbage.insideTLS { writer.bool("insideTLS", true) }
        case .closeAfterBytes(let bytes):
            writer.integer("bytes", bytes)
        }
    }

    static func delay(_ delay: ScenarioDelay, into writer: inout JSONWriter) {
        writer.beginObject("delay")
        switch delay {
        case .fixed(let milliseconds):
            writer.raw("milliseconds", json: number(milliseconds))
        case .uniform(let low, let high):
            writer.string("distribution", ScenarioDecoder.Distribution.uniform.rawValue)
            writer.raw("minMilliseconds", json: number(low))
            writer.raw("maxMilliseconds", json: number(high))
        case .logNormal(let median, let sigma, let cap):
            writer.string("distribution", ScenarioDecoder.Distribution.lognormal.rawValue)
            writer.raw("medianMilliseconds", json: number(median))
            writer.raw("sigma", json: number(sigma))
            if let cap { writer.raw("maxMilliseconds", json: number(cap)) }
        }
        writer.endObject()
    }

    /// A finite number as JSON: whole numbers without a fraction, others as Swift prints
    /// them (the shortest text that reads back as the same Double).
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(describing: value)
    }
}
