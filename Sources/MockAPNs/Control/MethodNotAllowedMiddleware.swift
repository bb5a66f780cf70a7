import Hummingbird

/// Answers a request whose path is served but whose method is not with 405 and an `Allow`
/// header listing the methods that are (RFC 9110, section 15.5.6), where the router alone
/// would say 404.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    /// Each served path, split into segments (`:name` matches any one segment), with its methods.
    private let paths: [(segments: [Substring], methods: [HTTPRequest.Method])]

    init(routes: [(method: HTTPRequest.Method, path: String)]) {
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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = request.uri.path.split(separator: "/")
        guard let served = paths.first(where: { Self.matches(segments, $0.segments) }),
              !served.methods.contains(request.method)
        else {
            return try await next(request, context)
        }
        let allowed = served.methods.map(\.rawValue).joined(separator: ", ")
        var response = ControlAPIError(
            "\(request.method.rawValue) is not served at \(request.uri.path.prefix(200)); allowed: \(allowed)",
            status: .methodNotAllowed
        ).response
        response.headers[.allow] = allowed
        return response
    }

    private static func matches(_ segments: [Substring], _ template: [Substring]) -> Bool {
        segments.count == template.count
            && zip(segments, template).allSatisfy { segment, pattern in pattern.hasPrefix(":") || segment == pattern }
    }
}
