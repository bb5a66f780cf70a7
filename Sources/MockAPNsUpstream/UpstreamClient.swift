#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import MockAPNsHTTP2
import MockAPNsTLS
import MockAPNsWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A bounded pool of HTTP/2 connections to one upstream, over TLS verified against the given
/// CA (or the system's trust store), presenting a client certificate when given one.
///
/// A request sent with an `affinity` (the server passes the provider's connection) goes on a
/// connection of that affinity's own, opened on its first request and closed after
/// ``release(affinity:)``: the upstream sees each provider connection as a connection of its
/// own, as it would without MockAPNs in between. APNs needs that: it ties a connection to one
/// team and refuses a new provider token on it within 20 minutes of the last, so two
/// providers (or two processes of one) sharing an upstream connection would be refused for
/// each other's tokens. Requests without an affinity share connections round-robin.
///
/// An affinity's connection lives on the event loop the request was sent from (the provider
/// connection's own), so relaying a request hops no thread, and the requests one read of the
/// provider brought leave in one write. Each loop of the group has its own pool: its state and
/// its connections' handlers are touched only there, so it takes no lock, and no caller's
/// closure runs while a pool is being changed. Requests without an affinity share the pool
/// of one loop. Connections open lazily, at most `connections` at once across the pools (a
/// request that needs one more fails with `UpstreamFailure.overloaded`); a connection that
/// closed or received GOAWAY is dropped and replaced by the next request. A request the upstream did not process (a
/// GOAWAY naming an earlier stream, REFUSED_STREAM) is sent once more, on another connection.
/// Every request ends within its timeout: with the upstream's answer, or an `UpstreamFailure`.
package final class UpstreamClient: Sendable {
    /// Where requests go.
    package let endpoint: UpstreamEndpoint
    /// The most connections open at once.
    package let connections: Int
    /// How long TCP, then TLS, may take to connect.
    package let connectTimeout: TimeAmount
    /// How long a request may wait for its complete answer, from `send` on.
    package let requestTimeout: TimeAmount
    private let context: OpenSSLContext
    private let logger: Logger
    /// One pool per event loop of the group; requests without an affinity use the first.
    private let pools: [LoopPool]
    /// Connections taking requests, across the pools: what `connections` bounds.
    private let taken = NIOLockedValueBox(0)

    /// One event loop's pool: the state is touched only on `loop`.
    private struct LoopPool: Sendable {
        let loop: any EventLoop
        let state: NIOLoopBoundBox<Pool>
    }

    /// The connections of one loop, confined to it.
    private final class Pool {
        /// The connections that take requests, in the order they opened.
        var live: [Connection] = []
        /// Every connection not yet closed (live or not): what shutdown closes.
        var open: [ObjectIdentifier: Connection] = [:]
        /// Each affinity's own connection.
        var dedicated: [UInt64: Connection] = [:]
        var next = 0
        var opened = 0
        var shutDown = false
    }

    private final class Connection {
        let number: Int
        let handler: NGHTTP2ClientHandler
        var channel: (any Channel)?
        /// Completed once the connection is closed, or could not be made.
        let gone: EventLoopPromise<Void>

        init(number: Int, handler: NGHTTP2ClientHandler, gone: EventLoopPromise<Void>) {
            self.number = number
            self.handler = handler
            self.gone = gone
        }
    }

    /// Makes the client; no connection opens before the first request.
    ///
    /// - Parameters:
    ///   - certificateChain: The client certificate to present (leaf first), with its
    ///     `privateKey`; empty presents none.
    ///   - trustRoots: CA certificates the upstream's certificate must chain to; empty trusts
    ///     the system's store (as for Apple's own servers).
    ///   - group: Where connections run (one of its event loops).
    ///   - connections: The most connections open at once (at least 1).
    /// - Throws: A `TLSError` naming the file when a certificate, key or CA cannot be used
    ///   (never their contents).
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
        self.connections = max(1, connections)
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.logger = logger
        var pools: [LoopPool] = []
        for loop in group.makeIterator() {
            pools.append(LoopPool(loop: loop, state: .makeBoxSendingValue(Pool(), eventLoop: loop)))
        }
        if pools.isEmpty {
            let loop = group.next()
            pools.append(LoopPool(loop: loop, state: .makeBoxSendingValue(Pool(), eventLoop: loop)))
        }
        self.pools = pools
    }

    /// Sends a request made by `request(method:path:headers:body:)`.
    package func send(_ request: HTTP2ClientRequest, affinity: UInt64? = nil) -> EventLoopFuture<UpstreamResponse> {
        let answered = home(for: affinity).loop.makePromise(of: UpstreamResponse.self)
        send(request, affinity: affinity) { answered.completeWith($0.mapError { $0 }) }
        return answered.futureResult
    }

    /// Sends a request made by `request(method:path:headers:body:)` and calls `completion`
    /// once, on the event loop the request went out from (the caller's, with an `affinity`),
    /// with the upstream's answer or the `UpstreamFailure` in its place. A call rather than a
    /// future: relaying makes one per request, and a future is an object of its own.
    package func send(
        _ request: HTTP2ClientRequest, affinity: UInt64? = nil,
        completion: @escaping @Sendable (Result<UpstreamResponse, UpstreamFailure>) -> Void
    ) {
        let started = NIODeadline.now()
        let home = home(for: affinity)
        let sending = Sending(
            request: request, affinity: affinity, started: started, deadline: started + requestTimeout, answered: completion
        )
        if home.loop.inEventLoop {
            attempt(sending, retried: false, in: home)
        } else {
            home.loop.execute { self.attempt(sending, retried: false, in: home) }
        }
    }

    /// Where a request goes out from: an affinity's, the caller's own loop; else the first.
    private func home(for affinity: UInt64?) -> LoopPool {
        affinity == nil ? pools[0] : pools.first(where: { $0.loop.inEventLoop }) ?? pools[0]
    }

    /// One try on the loop; a request the upstream did not process is tried once more.
    private func attempt(_ sending: Sending, retried: Bool, in home: LoopPool) {
        let pool = home.state.value
        guard !pool.shutDown else { return sending.answered(.failure(.shutDown)) }
        let now = NIODeadline.now()
        let remaining = sending.deadline - now
        guard remaining > .zero else { return sending.answered(.failure(.timedOut(after: requestTimeout))) }
        guard let connection = sending.affinity.map({ pick(home, affinity: $0) }) ?? pick(home) else {
            return sending.answered(.failure(.overloaded(
                "all \(connections) upstream connections are taken by other provider connections (upstream.connections)")))
        }
        connection.handler.send(sending.request, timeout: remaining, on: home.loop) { result in
            switch result {
            case .success(let response):
                sending.answered(.success(UpstreamResponse(
                    status: response.status, headers: response.headers, body: response.body,
                    latency: .nanoseconds((NIODeadline.now() - sending.started).nanoseconds)
                )))
            case .failure(let error):
                let shutDown = home.state.value.shutDown
                if !retried, !shutDown, error.isRetryable {
                    self.logger.debug("the upstream did not process a request; sending it again", metadata: [
                        "upstream": "\(self.endpoint.origin)", "reason": "\(error)",
                    ])
                    return self.attempt(sending, retried: true, in: home)
                }
                sending.answered(.failure(self.failure(for: error, shutDown: shutDown)))
            }
        }
    }

    /// A connection that takes requests: a new one while the pool has room, else the next
    /// live one in turn. Connections that take no more are dropped from the turn first.
    private func pick(_ home: LoopPool) -> Connection? {
        let pool = home.state.value
        let before = pool.live.count
        pool.live.removeAll { connection in
            guard !connection.handler.acceptsNewRequests else { return false }
            // One still answering (after GOAWAY) closes by itself once it is done.
            if connection.handler.outstandingRequests == 0 { connection.channel?.close(promise: nil) }
            return true
        }
        givePlaces(back: before - pool.live.count)
        if pool.live.count < connections {
            // Shared connections are bounded by their own count, as they always were; they
            // hold places of the bound that affinities' connections respect.
            taken.withLockedValue { $0 += 1 }
            let connection = open(home)
            pool.live.append(connection)
            return connection
        }
        guard !pool.live.isEmpty else { return nil }
        pool.next = pool.next + 1 < pool.live.count ? pool.next + 1 : 0
        return pool.live[pool.next]
    }

    /// The affinity's own connection, opened when it has none that takes requests; `nil`
    /// when that would pass `connections`.
    private func pick(_ home: LoopPool, affinity: UInt64) -> Connection? {
        let pool = home.state.value
        if let own = pool.dedicated[affinity] {
            if own.handler.acceptsNewRequests { return own }
            // Done with, or told to go away: it closes by itself once its answers are in.
            pool.dedicated[affinity] = nil
            givePlaces(back: 1)
            own.handler.finish()
        }
        // Connections still closing (released, or told to go away) are not counted: they
        // take no request and are about to be gone.
        guard takePlace() else { return nil }
        let own = open(home)
        pool.dedicated[affinity] = own
        return own
    }

    /// The provider connection `affinity` closed: its upstream connection takes no more
    /// requests and closes once its last answer is in.
    package func release(affinity: UInt64) {
        for home in pools {
            home.loop.execute {
                guard let own = home.state.value.dedicated.removeValue(forKey: affinity) else { return }
                self.givePlaces(back: 1)
                own.handler.finish()
            }
        }
    }

    private func open(_ home: LoopPool) -> Connection {
        let pool = home.state.value
        let loop = home.loop
        pool.opened += 1
        let connection = Connection(
            number: pool.opened, handler: NGHTTP2ClientHandler(handshakeTimeout: connectTimeout), gone: loop.makePromise()
        )
        pool.open[ObjectIdentifier(connection)] = connection
        let bound = NIOLoopBound(connection, eventLoop: loop)
        let context = self.context
        let serverName = endpoint.host
        logger.debug("connecting to the upstream", metadata: ["upstream": "\(endpoint.origin)", "connection": "\(connection.number)"])
        ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(OpenSSLHandler(context: context, serverName: serverName))
                    try channel.pipeline.syncOperations.addHandler(bound.value.handler)
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
            .whenComplete { result in self.connected(bound.value, result, in: home) }
        return connection
    }

    private func connected(_ connection: Connection, _ result: Result<any Channel, any Error>, in home: LoopPool) {
        switch result {
        case .success(let channel):
            connection.channel = channel
            if home.state.value.shutDown { channel.close(promise: nil) }
            let bound = NIOLoopBound(connection, eventLoop: home.loop)
            channel.closeFuture.whenComplete { _ in
                self.logger.debug("upstream connection closed", metadata: [
                    "upstream": "\(self.endpoint.origin)", "connection": "\(bound.value.number)",
                ])
                self.forget(bound.value, in: home)
            }
        case .failure(let error):
            let detail = Self.describeConnectFailure(error)
            logger.notice("could not connect to the upstream", metadata: ["upstream": "\(endpoint.origin)", "error": "\(detail)"])
            connection.handler.fail(.connectFailed(detail))
            forget(connection, in: home)
        }
    }

    private func forget(_ connection: Connection, in home: LoopPool) {
        let pool = home.state.value
        pool.open[ObjectIdentifier(connection)] = nil
        let before = pool.live.count
        pool.live.removeAll { $0 === connection }
        givePlaces(back: before - pool.live.count)
        if let affinity = pool.dedicated.first(where: { $0.value === connection })?.key {
            pool.dedicated[affinity] = nil
            givePlaces(back: 1)
        }
        connection.gone.succeed(())
    }

    /// Closes every connection (GOAWAY, then TLS close_notify) and waits until they are
    /// closed; requests still waiting fail with `UpstreamFailure.shutDown`, and so do later ones.
    package func shutdown() async {
        for home in pools {
            await shutdown(home)
        }
    }

    private func shutdown(_ home: LoopPool) async {
        let closed = home.loop.flatSubmit { () -> EventLoopFuture<Void> in
            let pool = home.state.value
            pool.shutDown = true
            self.givePlaces(back: pool.live.count + pool.dedicated.count)
            pool.live = []
            pool.dedicated = [:]
            let connections = Array(pool.open.values)
            for connection in connections {
                if let channel = connection.channel {
                    channel.close(promise: nil)
                } else {
                    // Still connecting: its requests fail now, and the channel closes once made.
                    connection.handler.fail(.connectionClosed("the client shut down"))
                }
            }
            return EventLoopFuture.andAllComplete(connections.map(\.gone.futureResult), on: home.loop)
        }
        try? await closed.get()
    }
}

extension UpstreamClient {
    /// One request on its way: what is sent, and the promise its caller waits on.
    fileprivate struct Sending: Sendable {
        let request: HTTP2ClientRequest
        let affinity: UInt64?
        let started: NIODeadline
        let deadline: NIODeadline
        let answered: @Sendable (Result<UpstreamResponse, UpstreamFailure>) -> Void
    }

    /// Takes one place of the `connections` bound; `false` when all are taken.
    private func takePlace() -> Bool {
        taken.withLockedValue { taken in
            guard taken < connections else { return false }
            taken += 1
            return true
        }
    }

    /// Gives back `count` places (connections that take no more requests).
    private func givePlaces(back count: Int) {
        guard count > 0 else { return }
        taken.withLockedValue { $0 = max(0, $0 - count) }
    }

    // MARK: Failures

    /// What `error` means for the caller.
    private func failure(for error: HTTP2ClientError, shutDown: Bool) -> UpstreamFailure {
        if shutDown { return .shutDown }
        let authority = endpoint.authority
        switch error {
        case .connectFailed(let detail):
            return .unreachable("could not connect to \(authority): \(detail)")
        case .handshakeTimedOut(let limit):
            return .unreachable("\(authority) accepted the connection but completed no TLS handshake within \(HTTP2ClientError.duration(limit))")
        case .tlsHandshakeFailed(let reason):
            return .tlsFailed("TLS with \(authority) failed: \(reason)")
        case .alpnNotH2:
            return .tlsFailed("\(authority): \(error)")
        case .timedOut:
            return .timedOut(after: requestTimeout)
        case .streamReset(let code):
            return .reset(errorCode: code)
        case .connectionClosed, .goAwayBeforeProcessing, .notSent:
            return .closed("\(authority): \(error)")
        case .protocolError, .responseTooLarge:
            return .protocolError("\(authority): \(error)")
        }
    }

    /// Why a TCP connection could not be made, in a few words: `connection refused`, `no TCP
    /// connection within 5 s`, `the name could not be resolved (...)`.
    static func describeConnectFailure(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return describeConnectFailure(first.error) }
            if let resolution = error.dnsAError ?? error.dnsAAAAError { return "the name could not be resolved (\(resolution))" }
            return "the name resolved to no address"
        }
        if case .connectTimeout(let limit)? = error as? ChannelError {
            return "no TCP connection within \(HTTP2ClientError.duration(limit))"
        }
        if let error = error as? IOError {
            return "\(String(cString: strerror(error.errnoCode)).lowercased()) (errno \(error.errnoCode))"
        }
        return "\(error)"
    }
}

/// The upstream's answer to one request.
package struct UpstreamResponse: Sendable, Equatable {
    /// The final `:status`.
    package var status: Int
    /// Every header field but the pseudo-headers, in the order received.
    package var headers: [HTTPHeader]
    /// The body, byte for byte.
    package var body: [UInt8]
    /// From `send` to the complete answer (a request sent again included).
    package var latency: Duration

    /// `latency` in whole microseconds.
    package var latencyMicroseconds: Int {
        let (seconds, attoseconds) = latency.components
        return Int(seconds) &* 1_000_000 &+ Int(attoseconds / 1_000_000_000_000)
    }

    /// An answer of these parts.
    package init(status: Int, headers: [HTTPHeader], body: [UInt8], latency: Duration = .zero) {
        self.status = status
        self.headers = headers
        self.body = body
        self.latency = latency
    }
}

/// Why the upstream gave no answer. Each case names what happened; `kind` is the stable word
/// records carry. Never holds the client's key or certificate, only their file names.
package enum UpstreamFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection: refused, the name not resolved, no TCP connection or no TLS handshake
    /// within the connect timeout.
    case unreachable(String)
    /// TLS failed: the upstream's certificate did not verify (CA, name), or it would not speak
    /// HTTP/2 (ALPN).
    case tlsFailed(String)
    /// No complete answer within the request timeout (a stream already sent was reset with CANCEL).
    case timedOut(after: TimeAmount)
    /// The upstream reset the request's stream with this error code.
    case reset(errorCode: UInt32)
    /// The connection closed, or a GOAWAY left the request unprocessed even when sent again.
    case closed(String)
    /// The upstream broke HTTP/2.
    case protocolError(String)
    /// The client was shut down.
    case shutDown
    /// The request needed a connection of its own and the pool had `connections` open already.
    case overloaded(String)

    /// A stable word for records: `unreachable`, `tlsFailed`, `timedOut`, `reset`, `closed`,
    /// `protocolError`, `shutDown`, `overloaded`.
    package var kind: String {
        switch self {
        case .unreachable: "unreachable"
        case .tlsFailed: "tlsFailed"
        case .timedOut: "timedOut"
        case .reset: "reset"
        case .closed: "closed"
        case .protocolError: "protocolError"
        case .shutDown: "shutDown"
        case .overloaded: "overloaded"
        }
    }

    package var description: String {
        switch self {
        case .unreachable(let why): why
        case .tlsFailed(let why): why
        case .timedOut(let limit): "no complete answer within \(HTTP2ClientError.duration(limit)) (the request timeout)"
        case .reset(let code): "the upstream reset the stream: RST_STREAM \(HTTP2ErrorCode.name(of: code)) (\(code))"
        case .closed(let why): why
        case .protocolError(let why): why
        case .shutDown: "the upstream client was shut down before the answer"
        case .overloaded(let why): why
        }
    }
}
