import Logging
import MockAPNsHTTP2
import MockAPNsTLS
import MockAPNsWire
import NIOCore
import NIOPosix

/// A bounded pool of HTTP/2 connections to one upstream, over TLS verified against the given
/// CA (or the system's store), presenting a client certificate when given one.
///
/// The pool lives on one event loop of the server's group: its state and every connection's
/// handler are touched only there, so it takes no lock. Connections open lazily, up to
/// `connections`; requests go round-robin over those that can take them, and a connection
/// that closed or received GOAWAY is dropped and replaced. A request the upstream refused
/// unprocessed (REFUSED_STREAM, a GOAWAY naming an earlier stream) is sent once more on
/// another connection. Every request ends within its timeout: with the upstream's answer, or
/// an `UpstreamFailure`.
package final class UpstreamClient: Sendable {
    package let endpoint: UpstreamEndpoint
    private let loop: any EventLoop
    private let context: OpenSSLContext
    private let maximumConnections: Int
    private let connectTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let logger: Logger
    private let pool: NIOLoopBoundBox<Pool>

    /// The connections, confined to `loop`.
    private final class Pool {
        var connections: [Connection] = []
        var next = 0
        var shutDown = false
    }

    private final class Connection {
        let handler: NGHTTP2ClientHandler
        var channel: (any Channel)?

        init(handler: NGHTTP2ClientHandler) {
            self.handler = handler
        }
    }

    /// Makes the client; no connection opens before the first request. Throws a `TLSError`
    /// naming the file when a certificate, key or CA file cannot be used (never their contents).
    package init(
        endpoint: UpstreamEndpoint, certificateChain: [PEMSource] = [], privateKey: PEMSource? = nil,
        trustRoots: [PEMSource] = [], group: any EventLoopGroup, connections: Int = 2,
        connectTimeout: TimeAmount = .seconds(5), requestTimeout: TimeAmount = .seconds(10), logger: Logger
    ) throws(TLSError) {
        var tls = TLSClientConfiguration(
            alpnOffer: ["h2"], certificateChain: certificateChain, privateKey: privateKey, trustRootsPEM: trustRoots
        )
        tls.trustsSystemStore = trustRoots.isEmpty
        self.context = try OpenSSLContext(clientConfiguration: tls)
        self.endpoint = endpoint
        let loop = group.next()
        self.loop = loop
        self.maximumConnections = max(1, connections)
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.logger = logger
        self.pool = .makeBoxSendingValue(Pool(), eventLoop: loop)
    }

    /// Sends one request (`headers` without pseudo-headers: the client sets `:method`,
    /// `:scheme`, `:authority` and `:path`) and returns the upstream's answer, or fails with an
    /// `UpstreamFailure`.
    package func send(method: String, path: String, headers: [HTTPHeader], body: [UInt8]) -> EventLoopFuture<UpstreamResponse> {
        var fields = [
            HTTPHeader(name: ":method", value: method), HTTPHeader(name: ":scheme", value: "https"),
            HTTPHeader(name: ":authority", value: endpoint.authority), HTTPHeader(name: ":path", value: path),
        ]
        fields.append(contentsOf: headers)
        let request = HTTP2ClientRequest(headers: fields, body: body)
        return loop.flatSubmit { self.sendOnLoop(request, retried: false) }
    }

    private func sendOnLoop(_ request: HTTP2ClientRequest, retried: Bool) -> EventLoopFuture<UpstreamResponse> {
        let pool = self.pool.value
        guard !pool.shutDown else { return loop.makeFailedFuture(UpstreamFailure.shutDown) }
        let connection = pick(pool)
        let promise = loop.makePromise(of: HTTP2ClientResponse.self)
        connection.handler.send(request, timeout: requestTimeout, promise: promise)
        return promise.futureResult
            .map { UpstreamResponse(status: $0.status, headers: $0.headers, body: $0.body) }
            .flatMapError { error in
                guard let clientError = error as? HTTP2ClientError else {
                    return self.loop.makeFailedFuture(UpstreamFailure.protocolError("\(error)"))
                }
                if clientError.isRetryable, !retried, !self.pool.value.shutDown {
                    return self.sendOnLoop(request, retried: true)
                }
                return self.loop.makeFailedFuture(UpstreamFailure(clientError))
            }
    }

    /// A connection that takes requests: a new one while the pool has room, else the next
    /// usable one in turn. Connections that can take no more are dropped first.
    private func pick(_ pool: Pool) -> Connection {
        pool.connections.removeAll { connection in
            guard !connection.handler.isUsable else { return false }
            if connection.handler.outstanding == 0 { connection.channel?.close(promise: nil) }
            return true
        }
        if pool.connections.count < maximumConnections {
            return open(pool)
        }
        pool.next = (pool.next + 1) % pool.connections.count
        return pool.connections[pool.next]
    }

    private func open(_ pool: Pool) -> Connection {
        let handler = NGHTTP2ClientHandler(handshakeTimeout: connectTimeout)
        let connection = Connection(handler: handler)
        pool.connections.append(connection)
        let context = self.context
        let endpoint = self.endpoint
        let bound = NIOLoopBound(connection, eventLoop: loop)
        let logger = self.logger
        ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context, serverName: endpoint.host))
                    try channel.pipeline.syncOperations.addHandler(bound.value.handler)
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .whenComplete { result in
                let connection = bound.value
                switch result {
                case .success(let channel):
                    connection.channel = channel
                case .failure(let error):
                    logger.notice("could not connect to the upstream", metadata: ["upstream": "\(endpoint.origin)", "error": "\(error)"])
                    connection.handler.fail(.connectFailed("\(endpoint.authority): \(error)"))
                }
            }
        return connection
    }

    /// Closes every connection (GOAWAY, then close); requests still waiting fail with
    /// `UpstreamFailure.shutDown` or `.closed`, and later ones with `.shutDown`.
    package func shutdown() async {
        let channels: [any Channel]? = try? await loop.submit {
            let pool = self.pool.value
            pool.shutDown = true
            let channels = pool.connections.compactMap(\.channel)
            for connection in pool.connections { connection.handler.close(reason: "the server is shutting down") }
            pool.connections = []
            return channels
        }.get()
        for channel in channels ?? [] {
            try? await channel.closeFuture.get()
        }
    }
}

/// The upstream's answer to one request.
package struct UpstreamResponse: Sendable, Equatable {
    package var status: Int
    /// Every header field but the pseudo-headers, in the order received.
    package var headers: [HTTPHeader]
    package var body: [UInt8]
}

/// Why the upstream gave no answer.
package enum UpstreamFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection: refused, no route, no TLS within the connect timeout.
    case unreachable(String)
    /// TLS failed: the upstream's certificate did not verify, or it would not speak HTTP/2.
    case tlsFailed(String)
    /// No complete answer within the request timeout.
    case timedOut(String)
    /// The upstream reset the request's stream.
    case reset(errorCode: UInt32)
    /// The connection closed (or went away) before the answer.
    case closed(String)
    /// The upstream broke HTTP/2.
    case protocolError(String)
    /// The server was shutting down.
    case shutDown

    init(_ error: HTTP2ClientError) {
        switch error {
        case .connectFailed: self = .unreachable(error.description)
        case .handshakeTimedOut: self = .unreachable(error.description)
        case .handshakeFailed, .notHTTP2: self = .tlsFailed(error.description)
        case .timedOut: self = .timedOut(error.description)
        case .reset(let code): self = .reset(errorCode: code)
        case .refused, .closed: self = .closed(error.description)
        case .protocolError: self = .protocolError(error.description)
        }
    }

    /// A stable word for records: `unreachable`, `tlsFailed`, `timedOut`, `reset`, `closed`,
    /// `protocolError`, `shutDown`.
    package var kind: String {
        switch self {
        case .unreachable: "unreachable"
        case .tlsFailed: "tlsFailed"
        case .timedOut: "timedOut"
        case .reset: "reset"
        case .closed: "closed"
        case .protocolError: "protocolError"
        case .shutDown: "shutDown"
        }
    }

    package var description: String {
        switch self {
        case .unreachable(let why): why
        case .tlsFailed(let why): why
        case .timedOut(let why): why
        case .reset(let code): "the upstream reset the stream (\(HTTP2ErrorCode.name(of: code)))"
        case .closed(let why): why
        case .protocolError(let why): why
        case .shutDown: "the server is shutting down"
        }
    }
}
