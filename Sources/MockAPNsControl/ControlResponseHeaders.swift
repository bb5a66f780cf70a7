import Hummingbird
import MockAPNsWire

/// The control API's outermost middleware: every answer the router gives (the dashboard's
/// page, script and style, JSON, the event stream, refusals) carries the headers that keep
/// other pages from using it through the visitor's browser.
///
/// - No framing: `Content-Security-Policy: frame-ancestors 'none'` and, for browsers that
///   predate it, `X-Frame-Options: DENY`. Otherwise a page on any port could show the
///   dashboard in an invisible frame over decoys and have the visitor click "Devices & clock"
///   then "Let it run" (clickjacking): the Origin check cannot help, the requests are the
///   dashboard's own.
/// - The page runs only its own files: the rest of the policy allows scripts, styles and
///   requests from the API's own origin and nothing inline (the page has no inline script,
///   style or handler), so markup that found its way into the page could not run.
/// - `X-Content-Type-Options: nosniff`: a JSON answer is never taken for a script or style by
///   another site's page that loads it as one.
package struct ControlResponseHeadersMiddleware: RouterMiddleware {
    package typealias Context = ControlRequestContext

    /// One policy for every answer: what the dashboard needs, nothing more. `img-src data:`
    /// is for the page's empty icon (`<link rel="icon" href="data:,">`, which keeps the
    /// browser from asking for /favicon.ico).
    package static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src data:",
        "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// The headers, by name and value: this middleware sets them on the router's answers, and
    /// `HTTP1ProtocolErrorHandler` on the 400 the connection answers before a request reaches
    /// the router (a bad request line, a header block over the limit, broken framing).
    package static let fields: [HTTPHeader] = [
        HTTPHeader(name: "Content-Security-Policy", value: contentSecurityPolicy),
        HTTPHeader(name: "X-Frame-Options", value: "DENY"),
        HTTPHeader(name: "X-Content-Type-Options", value: "nosniff"),
    ]

    /// `fields` as HTTPTypes names; the initializer fails only for a name that is not a token,
    /// which none is (the tests read the headers).
    private static let typedFields = fields.compactMap { field in HTTPFields.Element.Name(field.name).map { ($0, field.value) } }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // What Hummingbird would answer for the error, with the headers too.
            response = try error.response(from: request, context: context)
        }
        for (name, value) in Self.typedFields { response.headers[name] = value }
        return response
    }
}
