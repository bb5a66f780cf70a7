import Hummingbird

/// Answers a path (or method) the control API does not have with a JSON body like every
/// other refusal, naming what was asked and where the list of endpoints is.
struct UnknownPathAsJSON<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            let message = error.status == .notFound
                ? "no such endpoint: \(request.method) \(request.uri.path); GET /openapi.json lists them all"
                : "\(request.uri.path) does not take \(request.method); GET /openapi.json lists the endpoints"
            return ControlAPIError(message, parameter: "path", status: error.status).response
        }
    }
}
