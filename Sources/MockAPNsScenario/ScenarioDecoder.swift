import MockAPNsCore
import MockAPNsBroadcast
extension Scenario {
    /// A scenario from the JSON a scenario file holds (`scenarios/schema.json`); every mistake
    /// is reported with its JSON path and what was expected.
    public init(jsonText: String) throws(ScenarioDecodingError) {
        self = try Self.decode(jsonText: jsonText)
    }

    /// Decodes a scenario file. Unknown keys are errors, and every mistake is collected
    /// before the error is thrown.
    package static func decode(jsonText: String) throws(ScenarioDecodingError) -> Scenario {
        try ScenarioDecoder.decode(jsonText) { decoder, root in decoder.scenario(root) }
    }
}

extension ScenarioRule {
    /// One rule as a scenario file's `rules` hold it (`scenarios/schema.json`), checked by the
    /// same decoder as a whole file, its mistakes named by JSON paths from `$`. A rule without
    /// a `name` gets an empty one (`AddedScenarioRules.add` names it after its id).
    package static func decode(jsonText: String) throws(ScenarioDecodingError) -> ScenarioRule {
        try ScenarioDecoder.decode(jsonText) { decoder, root in decoder.rule(root, path: "$", defaultName: "") }
    }
}

/// Reads a scenario document node by node, collecting mistakes instead of stopping at the
/// first: within one object the first mistake of each member is kept, and unknown keys are
/// all reported.
final class ScenarioDecoder {
    /// Mistakes found so far, in the order found.
    var errors: [JSONFileError] = []

    /// `read` run on the parsed text; every mistake found, in the order of the text, thrown
    /// together.
    static func decode<Value>(
        _ jsonText: String, _ read: (ScenarioDecoder, JSONNode) -> Value?
    ) throws(ScenarioDecodingError) -> Value {
        let root: JSONNode
        do {
            root = try JSONParser.parse(jsonText)
        } catch {
            throw ScenarioDecodingError(errors: [error])
        }
        let decoder = ScenarioDecoder()
        let value = read(decoder, root)
        guard decoder.errors.isEmpty, let value else {
            throw ScenarioDecodingError(errors: decoder.errors.sorted {
                ($0.position.line, $0.position.column) < ($1.position.line, $1.position.column)
            })
        }
        return value
    }

    // MARK: Helpers

    /// Runs one read; a mistake is recorded and the value is `nil`.
    func read<Value>(_ body: () throws(JSONFileError) -> Value?) -> Value? {
        do {
            return try body()
        } catch {
            errors.append(error)
            return nil
        }
    }

    /// An object reader, after reporting every key not in `allowed`.
    func object(_ node: JSONNode, path: String, allowed: [String]) -> JSONObjectReader? {
        guard let reader = read({ () throws(JSONFileError) in try JSONObjectReader(node, path: path) }) else { return nil }
        if case .object(let members) = node.value {
            for member in members where !allowed.contains(member.key) {
                errors.append(JSONFileError(
                    path: "\(path).\(member.key)", position: member.keyPosition,
                    message: "unknown key \"\(member.key)\"; expected one of: \(allowed.joined(separator: ", "))"
                ))
            }
        }
        return reader
    }

    func required<Value>(_ value: Value?, _ reader: JSONObjectReader, _ key: String, expected: String) -> Value? {
        if value == nil, !reader.keys.contains(key) {
            errors.append(reader.missing(key, expected: expected))
        }
        return value
    }

    func fail(_ path: String, _ node: JSONNode, _ message: String) {
        errors.append(JSONFileError(path: path, position: node.position, message: message))
    }

    /// An array of strings each one of `Choice`'s raw values.
    func choices<Choice: RawRepresentable & CaseIterable>(
        _ reader: inout JSONObjectReader, _ key: String, _ type: Choice.Type
    ) -> [Choice]? where Choice.RawValue == String {
        guard let elements = read({ () throws(JSONFileError) in try reader.array(key) }) else { return nil }
        let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        var result: [Choice] = []
        for (path, node) in elements {
            guard case .string(let text) = node.value, let choice = Choice(rawValue: text) else {
                fail(path, node, "expected one of \(names), found \(Self.describe(node.value))")
                continue
            }
            result.append(choice)
        }
        return result
    }

    static func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        if case .number(let text) = value { return text }
        return value.kindDescription
    }

    /// A value given as a number in `range` or as one of `names`.
    func code<Number: FixedWidthInteger>(
        _ reader: inout JSONObjectReader, _ key: String, names: [(name: String, code: Number)], range: ClosedRange<Int64>
    ) -> Number? {
        guard let node = reader.node(key) else { return nil }
        let path = reader.path(of: key)
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound) or one of \(names.map { "\"\($0.name)\"" }.joined(separator: ", "))"
        switch node.value {
        case .number(let text):
            if let value = Int64(text), range.contains(value) { return Number(value) }
        case .string(let text):
            if let found = names.first(where: { $0.name.lowercased() == text.lowercased() }) { return found.code }
        default:
            break
        }
        fail(path, node, "expected \(expected), found \(Self.describe(node.value))")
        return nil
    }

    static let tokenCharacters = Set("0123456789abcdefABCDEF")
    /// What a rule's `match.tokens` may hold: hex device tokens and web push subscription ids
    /// (base64url).
    static let matchTokenCharacters = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")

    private func token(_ reader: inout JSONObjectReader) -> String? {
        guard let node = reader.node("token") else {
            errors.append(reader.missing("token", expected: "a device token in hex"))
            return nil
        }
        guard case .string(let text) = node.value, !text.isEmpty, text.allSatisfy(Self.tokenCharacters.contains) else {
            fail(reader.path(of: "token"), node, "expected a device token in hex, found \(Self.describe(node.value))")
            return nil
        }
        return text.lowercased()
    }

    // MARK: Keys

    // The keys each object takes; `scenarios/schema.json` is tested against these tables.
    static let documentKeys = ["$schema", "name", "description", "seed", "initialState", "registry", "connection", "rules"]
    static let registryKeys = ["unregistered", "expired", "topics", "feedback", "environments"]
    static let connectionKeys = ["maxConcurrentStreams", "idleTimeoutSeconds", "goAwayAfterRequests"]
    static let ruleKeys = ["name", "stage", "match", "action", "delay", "times", "requiresState", "setsState"]
    /// One key per `ScenarioMatch` property, named as the property is.
    static let matchKeys = ["protocols", "tokens", "topics", "pushTypes", "priorities", "authentication", "payloadSize", "payload",
                            "requestIndex", "connectionIndex", "probability", "channels", "channelOperations"]
    /// The matchers that need a request, which a connection rule (`refuseHandshake`) cannot use.
    static let requestMatchKeys = ["tokens", "topics", "pushTypes", "priorities", "authentication", "payloadSize", "payload", "requestIndex",
                                   "channels", "channelOperations"]

    // MARK: Document

    func scenario(_ root: JSONNode) -> Scenario? {
        guard var reader = object(root, path: "$", allowed: Self.documentKeys) else {
            return nil
        }
        _ = read { () throws(JSONFileError) in try reader.string("$schema") }
        let name = required(read { () throws(JSONFileError) in try reader.string("name") }, reader, "name", expected: "a string")
        let description = read { () throws(JSONFileError) in try reader.string("description") }
        let seed = read { () throws(JSONFileError) in try reader.unsigned64("seed") }
        let initialState = read { () throws(JSONFileError) in try reader.string("initialState") }
        let registry = reader.node("registry").flatMap { registryState($0, path: reader.path(of: "registry")) }
        let connection = reader.node("connection").flatMap { connectionSettings($0, path: reader.path(of: "connection")) }
        var rules: [ScenarioRule] = []
        if let elements = read({ () throws(JSONFileError) in try reader.array("rules") }) {
            for (index, element) in elements.enumerated() {
                if let rule = rule(element.node, path: element.path, defaultName: "rules[\(index)]") { rules.append(rule) }
            }
        }
        guard let name else { return nil }
        return Scenario(
            name: name, description: description, seed: seed,
            initialState: initialState ?? Scenario.defaultInitialState,
            registry: registry ?? ScenarioRegistryState(),
            connection: connection ?? ScenarioConnectionSettings(), rules: rules
        )
    }

    private func registryState(_ node: JSONNode, path: String) -> ScenarioRegistryState? {
        guard var reader = object(node, path: path, allowed: Self.registryKeys) else { return nil }
        var state = ScenarioRegistryState()
        state.unregistered = tokenTimes(&reader, "unregistered", topic: true)
        state.expired = tokenTimes(&reader, "expired", topic: false)
        state.feedback = tokenTimes(&reader, "feedback", topic: true)
        if let elements = read({ () throws(JSONFileError) in try reader.array("topics") }) {
            for (elementPath, element) in elements {
                guard var entry = object(element, path: elementPath, allowed: ["token", "topics"]) else { continue }
                let token = token(&entry)
                let topics = required(read { () throws(JSONFileError) in try entry.strings("topics") }, entry, "topics", expected: "an array of topics")
                if let token, let topics { state.topics.append(.init(token: token, topics: topics)) }
            }
        }
        if let elements = read({ () throws(JSONFileError) in try reader.array("environments") }) {
            for (elementPath, element) in elements {
                guard var entry = object(element, path: elementPath, allowed: ["token", "environment"]) else { continue }
                let token = token(&entry)
                let environment = required(read { () throws(JSONFileError) in try entry.oneOf("environment", APNsEnvironment.self) },
                                           entry, "environment", expected: "sandbox or production")
                if let token, let environment { state.environments.append(.init(token: token, environment: environment)) }
            }
        }
        return state
    }

    private func tokenTimes(_ reader: inout JSONObjectReader, _ key: String, topic allowsTopic: Bool) -> [ScenarioRegistryState.TokenSince] {
        guard let elements = read({ () throws(JSONFileError) in try reader.array(key) }) else { return [] }
        var result: [ScenarioRegistryState.TokenSince] = []
        for (elementPath, element) in elements {
            guard var entry = object(element, path: elementPath, allowed: allowsTopic ? ["token", "since", "topic"] : ["token", "since"]) else { continue }
            let token = token(&entry)
            let since = required(read { () throws(JSONFileError) in try entry.integer("since", in: 0...Int64.max) }, entry, "since",
                                 expected: "milliseconds since 1970")
            let topic = allowsTopic ? read { () throws(JSONFileError) in try entry.string("topic") } : nil
            if let token, let since { result.append(.init(token: token, since: since, topic: topic)) }
        }
        return result
    }

    private func connectionSettings(_ node: JSONNode, path: String) -> ScenarioConnectionSettings? {
        guard var reader = object(node, path: path, allowed: Self.connectionKeys) else { return nil }
        var settings = ScenarioConnectionSettings()
        settings.maxConcurrentStreams = read { () throws(JSONFileError) in try reader.integer("maxConcurrentStreams", in: 1...Int64(Int32.max)) }.map { Int($0) }
        settings.idleTimeoutSeconds = read { () throws(JSONFileError) in try reader.double("idleTimeoutSeconds", in: 0.001...86_400 * 365) }
        settings.goAwayAfterRequests = read { () throws(JSONFileError) in try reader.integer("goAwayAfterRequests", in: 1...Int64(Int32.max)) }.map { Int($0) }
        return settings
    }

    // MARK: Rules

    /// One rule; `defaultName` names it when it has no `name`.
    func rule(_ node: JSONNode, path: String, defaultName: String) -> ScenarioRule? {
        guard var reader = object(node, path: path, allowed: Self.ruleKeys) else { return nil }
        let errorsBefore = errors.count
        var rule = ScenarioRule(name: read { () throws(JSONFileError) in try reader.string("name") } ?? defaultName)
        let stage = read { () throws(JSONFileError) in try reader.oneOf("stage", ScenarioStage.self) }
        if let matchNode = reader.node("match") {
            rule.match = match(matchNode, path: reader.path(of: "match")) ?? ScenarioMatch()
        }
        if let actionNode = reader.node("action") {
            rule.action = action(actionNode, path: reader.path(of: "action"))
        }
        // A rate window set before validation counts the push that set it.
        if case .limitRate? = rule.action {
            rule.stage = stage ?? .beforeValidation
        } else {
            rule.stage = stage ?? .afterValidation
        }
        if let delayNode = reader.node("delay") {
            rule.delay = delay(delayNode, path: reader.path(of: "delay"))
        }
        rule.times = read { () throws(JSONFileError) in try reader.integer("times", in: 1...Int64(Int32.max)) }.map { Int($0) }
        rule.requiresState = read { () throws(JSONFileError) in try reader.string("requiresState") }
        rule.setsState = read { () throws(JSONFileError) in try reader.string("setsState") }
        guard errors.count == errorsBefore else { return nil }

        if !reader.keys.contains("action"), !reader.keys.contains("delay") {
            errors.append(JSONFileError(path: path, position: reader.position,
                                        message: "a rule needs an \"action\", a \"delay\", or both"))
            return nil
        }
        if rule.isConnectionRule {
            if case .object(let members) = reader.node("match")?.value,
               let member = members.first(where: { Self.requestMatchKeys.contains($0.key) }) {
                errors.append(JSONFileError(
                    path: "\(path).match.\(member.key)", position: member.keyPosition,
                    message: "refuseHandshake acts before any request, so its rule may match only protocols, connectionIndex and probability"
                ))
                return nil
            }
        }
        return rule
    }

    private func match(_ node: JSONNode, path: String) -> ScenarioMatch? {
        guard var reader = object(node, path: path, allowed: Self.matchKeys) else { return nil }
        var match = ScenarioMatch()
        match.protocols = choices(&reader, "protocols", Transport.self).map(Set.init)
        if let elements = read({ () throws(JSONFileError) in try reader.array("tokens") }) {
            var tokens: Set<String> = []
            for (elementPath, element) in elements {
                guard case .string(let text) = element.value, !text.isEmpty, text.allSatisfy(Self.matchTokenCharacters.contains) else {
                    fail(elementPath, element, "expected a device token in hex or a web push subscription id, found \(Self.describe(element.value))")
                    continue
                }
                tokens.insert(text.lowercased())
            }
            match.tokens = tokens
        }
        match.topics = read { () throws(JSONFileError) in try reader.strings("topics") }.map(Set.init)
        match.channels = read { () throws(JSONFileError) in try reader.strings("channels") }.map(Set.init)
        match.channelOperations = choices(&reader, "channelOperations", ChannelOperation.self).map(Set.init)
        match.pushTypes = choices(&reader, "pushTypes", PushType.self).map { Set($0.map(\.rawValue)) }
        if let elements = read({ () throws(JSONFileError) in try reader.array("priorities") }) {
            var priorities: Set<Int> = []
            for (elementPath, element) in elements {
                guard case .number(let text) = element.value, let value = Int(text), (0...10).contains(value) else {
                    fail(elementPath, element, "expected a priority from 0 to 10 (Apple's are 1, 5 and 10), found \(Self.describe(element.value))")
                    continue
                }
                priorities.insert(value)
            }
            match.priorities = priorities
        }
        if let authNode = reader.node("authentication"),
           var auth = object(authNode, path: reader.path(of: "authentication"), allowed: ["kind", "teamId", "keyId"]) {
            match.authentication = AuthenticationMatch(
                kind: read { () throws(JSONFileError) in try auth.oneOf("kind", AuthenticationMatch.Kind.self) },
                teamID: read { () throws(JSONFileError) in try auth.string("teamId") },
                keyID: read { () throws(JSONFileError) in try auth.string("keyId") }
            )
        }
        if let sizeNode = reader.node("payloadSize") {
            match.payloadSize = range(sizeNode, path: reader.path(of: "payloadSize"), allowed: ["min", "max"])
        }
        if let elements = read({ () throws(JSONFileError) in try reader.array("payload") }) {
            for (elementPath, element) in elements {
                guard var entry = object(element, path: elementPath, allowed: ["path", "equals", "exists"]) else { continue }
                let pathText = required(read { () throws(JSONFileError) in try entry.string("path") }, entry, "path",
                                        expected: "a dotted path into the payload, like \"aps.alert.title\"")
                let equals = entry.node("equals")?.value
                let exists = read { () throws(JSONFileError) in try entry.bool("exists") }
                if let pathText {
                    match.payload.append(PayloadMatch(path: pathText, equals: equals, exists: exists))
                }
            }
        }
        if let indexNode = reader.node("requestIndex") {
            let indexPath = reader.path(of: "requestIndex")
            if var indexReader = object(indexNode, path: indexPath, allowed: ["scope", "min", "max", "equals", "every"]) {
                let scope = read { () throws(JSONFileError) in try indexReader.oneOf("scope", RequestIndexMatch.Scope.self) } ?? .global
                let every = read { () throws(JSONFileError) in try indexReader.integer("every", in: 1...Int64(Int32.max)) }
                if let bounds = range(indexNode, path: indexPath, allowed: nil) {
                    match.requestIndex = RequestIndexMatch(scope: scope, range: bounds, every: every.map { Int($0) })
                }
            }
        }
        if let connectionNode = reader.node("connectionIndex") {
            match.connectionIndex = range(connectionNode, path: reader.path(of: "connectionIndex"), allowed: ["min", "max", "equals"])
        }
        match.probability = read { () throws(JSONFileError) in try reader.double("probability", in: 0...1) }
        return match
    }

    /// `{"min": a, "max": b}` or `{"equals": n}`, 1-based. `allowed` `nil`: the caller has
    /// already checked the keys.
    func range(_ node: JSONNode, path: String, allowed: [String]?) -> IntegerRange? {
        let reader: JSONObjectReader?
        if let allowed {
            reader = object(node, path: path, allowed: allowed)
        } else {
            reader = read { () throws(JSONFileError) in try JSONObjectReader(node, path: path) }
        }
        guard var reader else { return nil }
        let lowest: Int64 = allowed == ["min", "max"] ? 0 : 1
        let minimum = read { () throws(JSONFileError) in try reader.integer("min", in: lowest...Int64(Int32.max)) }
        let maximum = read { () throws(JSONFileError) in try reader.integer("max", in: lowest...Int64(Int32.max)) }
        let equals = read { () throws(JSONFileError) in try reader.integer("equals", in: lowest...Int64(Int32.max)) }
        if let equals {
            if minimum != nil || maximum != nil {
                fail(path, node, "expected either \"equals\" or \"min\"/\"max\", not both")
                return nil
            }
            return .exactly(Int(equals))
        }
        if let minimum, let maximum, minimum > maximum {
            fail(path, node, "expected \"min\" (\(minimum)) not above \"max\" (\(maximum))")
            return nil
        }
        return IntegerRange(min: minimum.map { Int($0) }, max: maximum.map { Int($0) })
    }
}
