import Hummingbird
import MockAPNsCore

/// The running scenario: read it with its state and firing counts, or replace it.
extension ControlAPI {
    /// `/v1/scenario`: `GET`, `PUT`.
    package var scenarioRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(scenario))
        routes.put(use: handle(replaceScenario))
        return routes
    }

    /// The running scenario, its named state, and how often each rule has fired.
    fileprivate func scenario(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
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
