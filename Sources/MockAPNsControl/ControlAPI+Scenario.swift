import Hummingbird
import MockAPNsCore
import MockAPNsScenario

/// The running scenario: read it with its state and firing counts, or replace it; the rules
/// added on top of it: list them, add one, remove one.
extension ControlAPI {
    /// `/v1/scenario`: `GET`, `PUT`; `/v1/scenario/rules`: `GET`, `POST`;
    /// `/v1/scenario/rules/{id}`: `DELETE`.
    package var scenarioRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(scenario))
        routes.put(use: handle(replaceScenario))
        routes.get("rules", use: handle(addedRules))
        routes.post("rules", use: handle(addRule))
        routes.delete("rules/:id", use: handle(removeRule))
        return routes
    }

    /// The running scenario, its named state, and how often each rule has fired.
    fileprivate func scenario(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let engine = server.scenarioEngine
        let scenario = engine.scenario
        let firings = engine.firingCounts
        return ControlResponse.object { json in
            json.string("name", scenario.name)
            json.string("description", scenario.description)
            // A string: a 64-bit seed is past what JavaScript's numbers hold exactly.
            json.string("seed", String(engine.seed))
            json.integer("rules", scenario.rules.count)
            json.string("initialState", scenario.initialState)
            json.string("state", engine.currentState)
            json.integer("requests", engine.requestCount)
            json.beginArray("firings")
            for (rule, fired) in zip(scenario.rules, firings) {
                json.beginObject()
                json.string("rule", rule.name)
                json.integer("fired", fired)
                json.integer("times", rule.times)
                json.endObject()
            }
            json.endArray()
        }
    }

    fileprivate func replaceScenario(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let text = try await Self.bodyText(request)
        do {
            try server.replaceScenario(jsonText: text)
        } catch {
            throw ControlAPIError("the scenario was not loaded: \(error)", parameter: "body")
        }
        return try await scenario(request, context)
    }
}

// MARK: Rules added on top of the scenario

extension ControlAPI {
    /// The added rules, newest (tried first) first, each with its id and firing count.
    fileprivate func addedRules(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let firings = server.addedScenarioRules.firings
        return ControlResponse.object { json in
            json.beginArray("rules")
            for firing in firings { Self.write(firing.entry, fired: firing.fired, into: &json) }
            json.endArray()
        }
    }

    /// `POST /v1/scenario/rules`: one rule as a scenario file's `rules` hold it, checked by the
    /// scenario decoder; answers `201` with its id and the rule as stored.
    fileprivate func addRule(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        let text = try await Self.bodyText(request)
        let rule: ScenarioRule
        do {
            rule = try ScenarioRule.decode(jsonText: text)
        } catch {
            throw ControlAPIError("the rule was not added: \(error)", parameter: error.errors.first?.path ?? "body")
        }
        let entry = server.addedScenarioRules.add(rule)
        var writer = JSONWriter()
        Self.write(entry, fired: 0, into: &writer)
        return ControlResponse.json(writer.text, status: .created)
    }

    /// `DELETE /v1/scenario/rules/{id}`: `404` for an id no added rule has.
    fileprivate func removeRule(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        let raw = context.parameters.get("id") ?? ""
        // A whole number too large for any id given is well formed, and names no rule.
        let isWholeNumber = !raw.isEmpty && raw.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard isWholeNumber, raw.contains(where: { $0 != "0" }) else {
            throw ControlAPIError("expected a rule id (a positive integer that POST /v1/scenario/rules answered), found \"\(raw)\"", parameter: "id")
        }
        guard let id = Int(raw), let removed = server.addedScenarioRules.remove(id: id) else {
            throw ControlAPIError("no added rule has the id \(raw) (GET /v1/scenario/rules lists them)", parameter: "id", status: .notFound)
        }
        return ControlResponse.object { json in
            json.integer("id", removed.id)
            json.bool("removed", true)
        }
    }

    private static func write(_ entry: AddedScenarioRules.Entry, fired: Int, into json: inout JSONWriter) {
        json.beginObject()
        json.integer("id", entry.id)
        json.integer("fired", fired)
        entry.rule.write(into: &json, key: "rule")
        json.endObject()
    }
}
