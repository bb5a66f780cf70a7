import MockAPNsCore
/// What the control API knows of one request before any route runs: the headers that say who
/// sent it and from where, and the connection it came on.
package struct ControlRequestFacts: Sendable, Equatable {
    package var method: String
    package var path: String
    /// The `Host` header; `nil` when the request had none.
    package var host: String?
    package var origin: String?
    package var authorization: String?
    package var contentType: String?
    /// The peer's IP address as text; `nil` when unknown (it then counts as another machine).
    package var peerAddress: String?
    /// The local IP address the connection arrived on.
    package var localAddress: String?
    /// Whether `authorization` carries the control token of a session that exists: the
    /// request is admitted from anywhere, and sees that session alone.
    package var presentsSessionToken = false

    package init(
        method: String, path: String, host: String?, origin: String? = nil, authorization: String? = nil,
        contentType: String? = nil, peerAddress: String?, localAddress: String?
    ) {
        self.method = method
        self.path = path
        self.host = host
        self.origin = origin
        self.authorization = authorization
        self.contentType = contentType
        self.peerAddress = peerAddress
        self.localAddress = localAddress
    }
}

/// Why the control API refuses a request before routing it, and how to get it admitted.
package struct ControlRefusal: Error, Sendable, Equatable {
    package enum Status: Int, Sendable {
        /// No `Host` header, or one no client would send (RFC 9112, section 3.2).
        case badRequest = 400
        /// A request from another machine without the right bearer token.
        case unauthorized = 401
        /// A page of another origin.
        case forbidden = 403
        /// A state-changing request that is not `application/json`.
        case unsupportedMediaType = 415
        /// A name the control API does not answer to (RFC 9110, section 15.5.20): the request
        /// was meant for some other server, or made under a name rebound to this machine.
        case misdirectedRequest = 421
    }

    package var status: Status
    package var message: String
    /// The request header at fault.
    package var header: String
}

/// Who may use the control API and its dashboard, decided for each request from its headers
/// and its peer before any route runs. Three checks, in this order:
///
/// 1. **Host**: the name the request was sent to must be a loopback name or address
///    (`localhost`, `127.0.0.0/8`, `::1`, with any port), the address the API listens on, the
///    local address the connection arrived on, or a name the user added. A page that reaches
///    the port under a name of its own (DNS rebinding: `evil.example` resolving to
///    127.0.0.1) is refused with 421, so it can neither read nor change anything.
/// 2. **Origin**: a request that carries `Origin` (browsers send it with every cross-origin
///    request and every non-GET one) must come from the API's own origin (`http://` and the
///    Host it was sent to) or an origin the user added; any other page gets 403.
/// 3. **Bearer token**: when the API may be reached from other machines, a request whose peer
///    is not a loopback address must carry `Authorization: Bearer <token>` (401 otherwise).
///    Loopback peers need none.
///
/// Separately, `bodyRefusal` requires `Content-Type: application/json` on every request
/// that is not GET or HEAD, so no HTML form and no "simple" cross-origin request (which a
/// browser sends without asking the server first) can change state.
package struct ControlAccessPolicy: Sendable {
    /// Host names (normalized) the API answers to besides loopback ones.
    private let hostNames: Set<String>
    /// Origins whose pages may call the API besides its own.
    private let origins: Set<WebOrigin>
    /// The token other machines must present; `nil`: the API listens on loopback only.
    package let token: BearerToken?

    /// - Parameters:
    ///   - listenHost: the address the API binds; it is an accepted name unless it is the
    ///     unspecified address (`0.0.0.0`, `::`), which no client sends.
    ///   - allowedHosts: names and addresses added by the user.
    ///   - allowedOrigins: origins added by the user.
    ///   - token: the bearer token for requests from other machines.
    package init(listenHost: String, allowedHosts: [String] = [], allowedOrigins: [WebOrigin] = [], token: BearerToken? = nil) {
        var names = Set(allowedHosts.map(HostName.normalized))
        if IPAddressLiteral(listenHost)?.isUnspecified != true {
            names.insert(HostName.normalized(listenHost))
        }
        hostNames = names
        origins = Set(allowedOrigins)
        self.token = token
    }

    /// The flag and configuration key that add a host name, as refusals name them.
    package static let allowedHostSetting = "--control-allowed-host NAME (config: control.allowedHosts)"
    /// The flag and configuration key that add an origin.
    package static let allowedOriginSetting = "--control-allowed-origin ORIGIN (config: control.allowedOrigins)"
    /// Where the token comes from.
    package static let tokenSetting =
        "the token printed at start-up, or the one given with --control-token, MOCKAPNS_CONTROL_TOKEN or control.token"

    /// The first check the request fails (Host, then Origin, then the token), or `nil` when
    /// it may go on to the router.
    package func refusal(for request: ControlRequestFacts) -> ControlRefusal? {
        guard let hostText = request.host else {
            return ControlRefusal(
                status: .badRequest, message: "a Host header is required (RFC 9112, section 3.2)", header: "Host")
        }
        guard let host = HostHeader(hostText) else {
            return ControlRefusal(
                status: .badRequest, message: "the Host header \(Self.quoted(hostText)) is not a host name or address with an optional port",
                header: "Host")
        }
        guard answers(to: host.name, localAddress: request.localAddress) else {
            return ControlRefusal(
                status: .misdirectedRequest,
                message: "the control API does not answer to the name \(Self.quoted(host.name)): it answers loopback names "
                    + "(localhost, 127.0.0.1, [::1]), the address it listens on, and names added with \(Self.allowedHostSetting). "
                    + "A page that reaches it under another name may be a DNS-rebinding attack",
                header: "Host")
        }
        if let originText = request.origin {
            let ownOrigin = WebOrigin(scheme: "http", host: host)
            guard let origin = WebOrigin(originText), origin == ownOrigin || origins.contains(origin) else {
                return ControlRefusal(
                    status: .forbidden,
                    message: "the control API refuses requests from pages of other origins (Origin: \(Self.quoted(originText))); "
                        + "it takes them from its own origin (\(ownOrigin)) and from origins added with \(Self.allowedOriginSetting)",
                    header: "Origin")
            }
        }
        if request.presentsSessionToken { return nil }
        if let presented = Self.bearerCredentials(request.authorization), token?.isPresented(in: request.authorization) != true {
            // A bearer token that is neither the server's nor a live session's: from loopback
            // too, or a test with a mistyped or ended session's token would see everything.
            return ControlRefusal(
                status: .unauthorized,
                message: "the bearer token (\(presented.utf8.count) characters) is neither the server's control token nor a session's "
                    + "(a session's token stops working when the session ends); send the right one, or none from this machine",
                header: "Authorization")
        }
        if let token, !(request.peerAddress.flatMap(IPAddressLiteral.init)?.isLoopback ?? false) {
            guard request.authorization != nil else {
                return ControlRefusal(
                    status: .unauthorized,
                    message: "a request from another machine must carry Authorization: Bearer TOKEN, with \(Self.tokenSetting)",
                    header: "Authorization")
            }
            guard token.isPresented(in: request.authorization) else {
                return ControlRefusal(
                    status: .unauthorized,
                    message: "the Authorization header does not carry the control token as Bearer TOKEN; use \(Self.tokenSetting)",
                    header: "Authorization")
            }
        }
        return nil
    }

    /// Refuses a request that may change state (any method but GET and HEAD) unless its
    /// `Content-Type` is `application/json` (parameters such as `charset` allowed), whether or
    /// not it has a body. HTML forms and cross-origin requests a browser sends without asking
    /// first can only carry `text/plain`, `application/x-www-form-urlencoded` or
    /// `multipart/form-data`, so none of them gets through.
    package static func bodyRefusal(method: String, path: String, contentType: String?) -> ControlRefusal? {
        guard method != "GET", method != "HEAD" else { return nil }
        let mediaType = contentType?.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingSpaces()
        if let mediaType, mediaType.lowercased() == "application/json" { return nil }
        let sent = contentType.map { "Content-Type \(quoted($0))" } ?? "no Content-Type"
        return ControlRefusal(
            status: .unsupportedMediaType,
            message: "\(method) \(path.prefix(200)) must be sent with Content-Type: application/json, even without a body "
                + "(it came with \(sent)): a page of another site can send other types without the browser asking first",
            header: "Content-Type")
    }

    /// The credentials of a `Bearer` authorization, as sent; `nil` for another scheme or none.
    package static func bearerCredentials(_ authorization: String?) -> String? {
        guard let authorization, let field = AuthorizationField(Substring(authorization)), field.hasScheme("bearer") else {
            return nil
        }
        return String(field.credentials)
    }

    /// Whether `name` (a Host header's name) is one the API answers to.
    private func answers(to name: String, localAddress: String?) -> Bool {
        if IPAddressLiteral.isLoopback(name) { return true }
        let normalized = HostName.normalized(name)
        if hostNames.contains(normalized) { return true }
        // An address typed by hand cannot be rebound: the connection's own address is fine
        // when the API listens on all of them.
        if let localAddress, IPAddressLiteral(name) != nil, HostName.normalized(localAddress) == normalized { return true }
        return false
    }

    /// `text` quoted for a message, cut at 100 characters.
    private static func quoted(_ text: String) -> String {
        "\"" + (text.count > 100 ? text.prefix(100) + "..." : text) + "\""
    }
}

private extension StringProtocol {
    /// Without the spaces and tabs at either end.
    func trimmingSpaces() -> SubSequence {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
