import Hummingbird
import MockAPNsCore
import MockAPNsJournal
import MockAPNsScenario

/// What `POST /v1/sessions` asks for.
package struct SessionRequest: Sendable {
    /// The session's topics; `nil` for the server's default.
    package var topics: [String]?
    /// Seconds it may go unused; `nil` for the default, 0 for no limit.
    package var idleSeconds: Int64?
    /// The scenario it starts with; `nil` for the server's configured one.
    package var scenario: Scenario?
}

/// A session as `GET /v1/sessions` lists it: no secret.
package struct SessionSummary: Sendable {
    package var id: String
    package var teamID: String
    package var keyID: String
    package var topics: [String]
    package var idleSeconds: Int64?
    package var createdAtMilliseconds: Int64
    package var scenario: String?

    package init(
        id: String, teamID: String, keyID: String, topics: [String], idleSeconds: Int64?, createdAtMilliseconds: Int64,
        scenario: String?
    ) {
        self.id = id
        self.teamID = teamID
        self.keyID = keyID
        self.topics = topics
        self.idleSeconds = idleSeconds
        self.createdAtMilliseconds = createdAtMilliseconds
        self.scenario = scenario
    }
}

/// A session just made: its summary and its secrets, which only this answer carries.
package struct SessionCreated: Sendable {
    package var summary: SessionSummary
    package var providerKeyPEM: String
    package var certificatePEM: String?
    package var certificateKeyPEM: String?
    package var certificateUnavailable: String?
    package var controlToken: String

    package init(
        summary: SessionSummary, providerKeyPEM: String, certificatePEM: String?, certificateKeyPEM: String?,
        certificateUnavailable: String?, controlToken: String
    ) {
        self.summary = summary
        self.providerKeyPEM = providerKeyPEM
        self.certificatePEM = certificatePEM
        self.certificateKeyPEM = certificateKeyPEM
        self.certificateUnavailable = certificateUnavailable
        self.controlToken = controlToken
    }
}

/// Sessions: making one, listing them, ending one.
extension ControlAPI {
    /// Under `/v1/sessions`: `POST`, `GET`; `GET`/`DELETE {id}`.
    package var sessionRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.post(use: handle(createSession))
        routes.get(use: handle(listSessions))
        routes.get(":id", use: handle(getSession))
        routes.delete(":id", use: handle(endSession))
        return routes
    }

    /// The longest idle time a session may be given: a day.
    package static let maximumSessionIdleSeconds: Int64 = 86_400

    fileprivate func createSession(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        guard context.session == nil else {
            throw ControlAPIError("a session's control token cannot make sessions; use the server's", status: .forbidden)
        }
        var body = try await Self.bodyObject(request, allowEmpty: true)
        var asked = SessionRequest()
        do {
            asked.topics = try body?.strings("topics")
        } catch {
            throw ControlAPIError(error)
        }
        asked.idleSeconds = try Self.readInteger(&body, "idleSeconds", in: 0...Self.maximumSessionIdleSeconds)
        if let node = body?.node("scenario") {
            // Decoded as a scenario file is, so its mistakes name their path within it.
            var text = JSONWriter()
            text.value(nil, node.value)
            do throws(ScenarioDecodingError) {
                asked.scenario = try Scenario.decode(jsonText: text.text)
            } catch {
                throw ControlAPIError("the scenario is not one a scenario file may hold: \(error.description)", parameter: "scenario")
            }
        }
        try Self.finish(body, allowed: ["topics", "idleSeconds", "scenario"])
        let created = try server.createSession(asked)
        var writer = JSONWriter()
        writer.beginObject()
        Self.write(created.summary, into: &writer)
        writer.string("providerKey", created.providerKeyPEM)
        writer.string("certificate", created.certificatePEM)
        writer.string("certificateKey", created.certificateKeyPEM)
        writer.string("certificateUnavailable", created.certificateUnavailable)
        writer.string("controlToken", created.controlToken)
        writer.endObject()
        return ControlResponse.json(writer.text, status: .created)
    }

    fileprivate func listSessions(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let view = try scoped(context)
        var writer = JSONWriter()
        writer.beginObject()
        writer.beginArray("sessions")
        for summary in view.sessionList {
            writer.beginObject()
            Self.write(summary, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    fileprivate func getSession(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        let id = try Self.sessionID(context)
        guard let summary = try scoped(context).sessionList.first(where: { $0.id == id }) else {
            throw Self.noSession(id)
        }
        var writer = JSONWriter()
        writer.beginObject()
        Self.write(summary, into: &writer)
        writer.endObject()
        return ControlResponse.json(writer.text)
    }

    fileprivate func endSession(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        let id = try Self.sessionID(context)
        // A session's token may end its own session, and no other.
        if let own = context.session, own != id { throw Self.noSession(id) }
        guard server.endSession(id) else { throw Self.noSession(id) }
        return ControlResponse.object { json in
            json.string("id", id)
            json.bool("ended", true)
        }
    }

    private static func sessionID(_ context: ControlRequestContext) throws(ControlAPIError) -> String {
        let id = context.parameters.get("id") ?? ""
        let isIDByte = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy(isIDByte) else {
            throw ControlAPIError("a session id is lowercase letters and digits, as POST /v1/sessions gave it, not \"\(id.prefix(70))\"", parameter: "id")
        }
        return id
    }

    private static func noSession(_ id: String) -> ControlAPIError {
        ControlAPIError("no session \(id): it was never made, or it ended (by request or after going unused)", parameter: "id", status: .notFound)
    }

    private static func write(_ summary: SessionSummary, into writer: inout JSONWriter) {
        writer.string("id", summary.id)
        writer.string("teamId", summary.teamID)
        writer.string("keyId", summary.keyID)
        writer.strings("topics", summary.topics)
        writer.integer("idleSeconds", summary.idleSeconds)
        writer.integer("createdAt", summary.createdAtMilliseconds)
        writer.string("scenario", summary.scenario)
    }

    /// The server as the request may see it: the whole server, or its session's view.
    package func scoped(_ context: ControlRequestContext) throws(ControlAPIError) -> any ControlledServer {
        guard let session = context.session else { return server }
        guard let view = server.session(session) else {
            throw ControlAPIError(
                "the session of this control token has ended (by request or after going unused)", parameter: "Authorization",
                status: .unauthorized)
        }
        return view
    }

    /// Refuses a session's token on a route that acts on the whole server.
    package func serverWide(_ context: ControlRequestContext, _ what: String) throws(ControlAPIError) {
        guard context.session == nil else {
            throw ControlAPIError(
                "\(what) belongs to the whole server, not to one session: use the server's control token", parameter: "Authorization",
                status: .forbidden)
        }
    }
}
