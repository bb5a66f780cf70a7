import MockAPNsObservation
import Hummingbird
import MockAPNsFleet
import MockAPNsCore
import MockAPNsJournal

/// The server as a whole: its OpenAPI document and metrics, liveness and ports, the reset
/// between tests, and the legacy gateway's maintenance shutdown.
extension ControlAPI {
    /// `GET /openapi.json`, `GET /metrics`.
    package var documentRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get("openapi.json") { _, _ in ControlResponse.json(ControlOpenAPI.document) }
        routes.get("metrics") { [server] _, context in
            if context.session != nil {
                return ControlAPIError(
                    "the metrics belong to the whole server, not to one session: use the server's control token",
                    parameter: "Authorization", status: .forbidden
                ).response
            }
            return Response(
                status: .ok, headers: [.contentType: ServerMetrics.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(string: await server.metricsText()))
            )
        }
        return routes
    }

    /// Under `/v1`: `GET health`, `GET ports`, `POST reset`, `POST legacy/shutdown`.
    package var serverRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get("health", use: handle(health))
        routes.get("ports", use: handle(ports))
        routes.post("reset", use: handle(reset))
        routes.post("legacy/shutdown", use: handle(legacyShutdown))
        return routes
    }

    fileprivate func health(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let statistics = server.journal.statistics
        let credentials = server.credentialsDirectory
        return ControlResponse.object { json in
            json.string("status", server.fleet.map { $0.health.reachable ? "ok" : "degraded" } ?? "ok")
            Self.write(statistics, key: "journal", into: &json)
            // What `mockapns certs dir` asks, so a client's curl line names the files this
            // server serves wherever it was started.
            json.string("credentials", credentials)
            if let fleet = server.fleet { Self.writeFleet(fleet.health, into: &json) }
        }
    }

    fileprivate func ports(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        guard let ports = server.boundPortsJSON else { throw ControlAPIError("the server is not listening", status: .serviceUnavailable) }
        return ControlResponse.json(ports)
    }

    /// Puts the server back as the configuration started it and says what was cleared.
    fileprivate func reset(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        let reset = server.reset()
        // The fleet's reads start after it too; the replicas reset themselves when they
        // replay this call.
        if !context.replayed, let fleet = server.fleet {
            fleet.publish(FleetChange(kind: .journalCleared, session: server.sessionID, body: String(server.clock.millisecondsSince1970)))
        }
        return ControlResponse.object { json in
            json.beginObject("cleared")
            json.integer("journalEvents", reset.journalEvents)
            json.integer("registryTokens", reset.registryTokens)
            json.integer("feedbackEntries", reset.feedbackEntries)
            json.integer("broadcastChannels", reset.broadcastChannels)
            json.integer("webPushSubscriptions", reset.webPushSubscriptions)
            json.beginObject("scenario")
            json.string("name", reset.scenario)
            json.integer("requests", reset.scenarioRequests)
            json.integer("firings", reset.scenarioFirings)
            json.string("state", reset.scenarioState)
            json.integer("addedRules", reset.addedRules)
            json.endObject()
            json.endObject()
            json.string("seed", String(reset.seed))
            json.beginObject("clock")
            json.integer("millisecondsSince1970", reset.clockMilliseconds)
            json.bool("fixed", reset.clockFixed)
            json.endObject()
        }
    }

    fileprivate func legacyShutdown(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The legacy gateway")
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        await server.legacyShutdown()
        return ControlResponse.object { $0.bool("shutDown", true) }
    }
}
