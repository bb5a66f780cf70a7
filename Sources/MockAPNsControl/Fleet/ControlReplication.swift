// The control API in a fleet: each change a replica's control API makes is written to the
// fleet's log and replayed, through the same router, on every other replica.

import Hummingbird
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsFleet
import NIOCore

/// Writes each control call that changed state to the fleet's log (`FleetStore.publish`), so
/// the other replicas replay it (`ControlReplay`): the route's checks and effects live in
/// the route alone, and a replayed call does what the call did here.
///
/// A call is logged when it may change state (any method but GET and HEAD), was answered
/// 2xx here, and is not itself a replay. Left out are the calls whose effect is logged its
/// own way or belongs to this replica alone (`isLoggedElsewhere`).
package struct ControlReplicationMiddleware: RouterMiddleware {
    package typealias Context = ControlRequestContext

    package let fleet: FleetStore

    package init(fleet: FleetStore) {
        self.fleet = fleet
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !context.replayed, request.method != .get, request.method != .head,
              !Self.isLoggedElsewhere(request.method, request.uri.path)
        else { return try await next(request, context) }
        var request = request
        let body = try await request.collectBody(upTo: ControlAPI.maximumBodyBytes)
        let response = try await next(request, context)
        guard (200..<300).contains(response.status.code) else { return response }
        var change = JSONWriter()
        change.beginObject()
        change.string("method", request.method.rawValue)
        change.string("path", request.uri.description)
        change.string("body", String(buffer: body))
        change.endObject()
        fleet.publish(FleetChange(kind: .control, session: context.session, body: change.text))
        return response
    }

    /// The calls not replayed:
    /// - `/v1/sessions`: a session's credentials are random; the server logs each session
    ///   made and ended itself, whichever API asked (`FleetChange.Kind.session`);
    /// - `/v1/channels`: a channel's id may be random; the channel registry logs each channel
    ///   as made, whichever API made it (`FleetChange.Kind.channel`);
    /// - `POST /v1/legacy/shutdown`: this replica's own legacy connections;
    /// - `PUT /v1/registry/{token}/rate-limit`: the registry logs each window given, whether
    ///   by this call or by a scenario's rule (`FleetChange.Kind.rateWindow`).
    /// - `POST /v1/web-push/subscriptions`: a subscription's keys are random; the server logs
    ///   each subscription as made (`FleetChange.Kind.webPushSubscription`).
    package static func isLoggedElsewhere(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        path == "/v1/sessions" || path.hasPrefix("/v1/sessions/")
            || path == "/v1/channels" || path.hasPrefix("/v1/channels/")
            || path == "/v1/legacy/shutdown"
            || (method == .put && path.hasPrefix("/v1/registry/") && path.hasSuffix("/rate-limit"))
            || (method == .post && path == "/v1/web-push/subscriptions")
    }
}

/// Replays a control call another replica logged: the same method, path and body, through
/// this replica's own router, as the session it was made for.
package struct ControlReplay: Sendable {
    private let responder: RouterResponder<ControlRequestContext>
    private let logger: Logger

    package init(api: ControlAPI, logger: Logger) {
        responder = api.makeRouter().buildResponder()
        self.logger = logger
    }

    /// Replays `change` (a `.control` change); logs a call this replica refused, which means
    /// the replicas' states had already parted (a change made while PostgreSQL was away).
    package func apply(_ change: FleetChange) async {
        guard let node = try? JSONParser.parse(change.body), var call = try? JSONObjectReader(node),
              let method = (try? call.string("method")).flatMap({ $0 }).flatMap(HTTPRequest.Method.init(_:)),
              let path = (try? call.string("path")).flatMap({ $0 }),
              let body = (try? call.string("body")).flatMap({ $0 })
        else {
            logger.warning("a control change in the fleet's log could not be read; skipped")
            return
        }
        var head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path)
        head.headerFields[.contentType] = "application/json"
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(string: body)))
        let context = ControlRequestContext(replayingFor: change.session, logger: logger)
        do {
            let response = try await responder.respond(to: request, context: context)
            if !(200..<300).contains(response.status.code) {
                logger.warning("a control change from the fleet was refused here (\(response.status.code)): \(method) \(path)")
            }
        } catch {
            logger.warning("a control change from the fleet failed here: \(method) \(path): \(error)")
        }
    }
}
