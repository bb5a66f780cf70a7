import Hummingbird
import MockAPNsCore

/// The control API's access checks, in front of every route, the dashboard's included: one
/// Host header, then the Host, Origin and bearer-token checks of `ControlAccessPolicy`. A
/// refused request is answered `{"error": ..., "parameter": "<header>"}` and never reaches a
/// route.
package struct ControlAccessMiddleware: RouterMiddleware {
    package typealias Context = ControlRequestContext

    package let policy: ControlAccessPolicy
    /// Where a session's control token is recognized.
    package let server: any ControlledServer

    package init(policy: ControlAccessPolicy, server: any ControlledServer) {
        self.policy = policy
        self.server = server
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A change replayed from the fleet's log passed these checks on the replica it was
        // made on, and carries the session they found.
        if context.replayed { return try await next(request, context) }
        // The first Host header is the request's authority; HTTPTypes keeps any other among
        // the fields. RFC 9112, section 3.2 has a request with more than one refused (400):
        // which one counts is anyone's guess, and a proxy in front may have judged the other.
        let hostCount = (request.head.authority == nil ? 0 : 1)
            + request.headers.reduce(0) { count, field in field.name.canonicalName == "host" ? count + 1 : count }
        if hostCount > 1 {
            return ControlAPIError(
                "the request carries \(hostCount) Host headers; it must carry exactly one (RFC 9112, section 3.2)",
                parameter: "Host"
            ).response
        }
        var context = context
        let authorization = request.headers[.authorization]
        let session = ControlAccessPolicy.bearerCredentials(authorization).flatMap(server.sessionID(forControlToken:))
        context.session = session
        var facts = ControlRequestFacts(
            method: request.method.rawValue,
            path: request.uri.path,
            host: request.head.authority,
            origin: request.headers[.origin],
            authorization: request.headers[.authorization],
            contentType: request.headers[.contentType],
            peerAddress: context.peerAddress,
            localAddress: context.localAddress
        )
        facts.presentsSessionToken = session != nil
        if let refusal = policy.refusal(for: facts) {
            return refusal.response
        }
        return try await next(request, context)
    }
}

/// Answers a path the control API does not have with 404, and a served path asked with a
/// method it does not serve with 405 and an `Allow` header (RFC 9110, section 15.5.6), both
/// as JSON like every other refusal, before the body checks and the router.
package struct RouteCatalogMiddleware: RouterMiddleware {
    package typealias Context = ControlRequestContext

    /// Each served path, split into segments (`{name}` matches any one segment), with its methods.
    private let paths: [(segments: [Substring], methods: [HTTPRequest.Method])]

    package init(routes: [(method: HTTPRequest.Method, path: String)]) {
        var paths: [(segments: [Substring], methods: [HTTPRequest.Method])] = []
        for route in routes {
            let segments = route.path.split(separator: "/")
            if let index = paths.firstIndex(where: { $0.segments == segments }) {
                paths[index].methods.append(route.method)
            } else {
                paths.append((segments, [route.method]))
            }
        }
        self.paths = paths
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = request.uri.path.split(separator: "/")
        guard let served = paths.first(where: { Self.matches(segments, $0.segments) }) else {
            return ControlAPIError(
                "no such endpoint: \(request.method) \(request.uri.path.prefix(200)); GET /openapi.json lists them all",
                parameter: "path", status: .notFound
            ).response
        }
        guard served.methods.contains(request.method) else {
            let allowed = served.methods.map(\.rawValue).joined(separator: ", ")
            var response = ControlAPIError(
                "\(request.method.rawValue) is not served at \(request.uri.path.prefix(200)); allowed: \(allowed)",
                parameter: "method", status: .methodNotAllowed
            ).response
            response.headers[.allow] = allowed
            return response
        }
        return try await next(request, context)
    }

    private static func matches(_ segments: [Substring], _ template: [Substring]) -> Bool {
        segments.count == template.count
            && zip(segments, template).allSatisfy { segment, pattern in pattern.hasPrefix("{") || segment == pattern }
    }
}

/// Requires `Content-Type: application/json` on every request that may change state (any
/// method but GET and HEAD), with or without a body (`ControlAccessPolicy.bodyRefusal`).
package struct JSONContentTypeMiddleware: RouterMiddleware {
    package typealias Context = ControlRequestContext

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = ControlAccessPolicy.bodyRefusal(
            method: request.method.rawValue, path: request.uri.path, contentType: request.headers[.contentType]
        ) {
            return refusal.response
        }
        return try await next(request, context)
    }
}

extension ControlRefusal {
    /// The JSON answer, with the status the refusal names; a 401 also says which scheme the
    /// API takes (`WWW-Authenticate`, RFC 9110, section 11.6.1).
    package var response: Response {
        var response = ControlAPIError(message, parameter: header, status: HTTPResponse.Status(code: status.rawValue)).response
        if case .unauthorized = status {
            response.headers[.wwwAuthenticate] = #"Bearer realm="mockapns control""#
        }
        return response
    }
}
