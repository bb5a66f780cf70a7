import Hummingbird
import MockAPNsCore

/// The device registry, one token at a time: unregister, expire, bind topics or an
/// environment, reactivate, forget.
extension ControlAPI {
    /// `/v1/registry/{token}`: `POST unregister`, `POST expire`, `PUT topics`, `PUT environment`,
    /// `POST reactivate`, `DELETE`.
    package var registryRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.post("unregister", use: handle(unregister))
        routes.post("expire", use: handle(expire))
        routes.put("topics", use: handle(bindTopics))
        routes.put("environment", use: handle(bindEnvironment))
        routes.post("reactivate", use: handle(reactivate))
        routes.delete(use: handle(forget))
        return routes
    }

    fileprivate func unregister(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: true)
        let since = try Self.readInteger(&body, "since", in: ServerClock.range) ?? server.clock.millisecondsSince1970
        let topic = try Self.readString(&body, "topic")
        try Self.finish(body, allowed: ["since", "topic"])
        server.registry.markUnregistered(token, since: since, topic: topic)
        return Self.tokenState(token, ["unregisteredSince": since])
    }

    fileprivate func expire(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: true)
        let since = try Self.readInteger(&body, "since", in: ServerClock.range) ?? server.clock.millisecondsSince1970
        try Self.finish(body, allowed: ["since"])
        server.registry.markExpired(token, since: since)
        return Self.tokenState(token, ["expiredSince": since])
    }

    fileprivate func bindTopics(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let listed: [String]?
        do {
            listed = try body?.strings("topics")
        } catch {
            throw ControlAPIError(error)
        }
        guard let topics = listed else {
            throw ControlAPIError("topics is required: an array of topic strings", parameter: "$.topics")
        }
        try Self.finish(body, allowed: ["topics"])
        server.registry.bind(token, toTopics: Set(topics))
        return ControlResponse.object { json in
            json.string("token", token)
            json.strings("topics", topics.sorted())
        }
    }

    fileprivate func bindEnvironment(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let token = try Self.token(context)
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let environment: APNsEnvironment?
        do {
            environment = try body?.oneOf("environment", APNsEnvironment.self)
        } catch {
            throw ControlAPIError(error)
        }
        guard let environment else {
            throw ControlAPIError("environment is required: sandbox or production", parameter: "$.environment")
        }
        try Self.finish(body, allowed: ["environment"])
        server.registry.bind(token, to: environment)
        return ControlResponse.object { json in
            json.string("token", token)
            json.string("environment", environment.rawValue)
        }
    }

    fileprivate func reactivate(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let token = try Self.token(context)
        try await Self.noFields(request)
        server.registry.reactivate(token)
        return Self.tokenState(token, [:], note: "reactivated")
    }

    fileprivate func forget(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let server = try scoped(context)
        let token = try Self.token(context)
        try await Self.noFields(request)
        server.registry.forget(token)
        return Self.tokenState(token, [:], note: "forgotten")
    }
}
