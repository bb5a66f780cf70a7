import MockAPNsControl
import MockAPNsCore
import NIOCore
import NIOHTTP1
import NIOPosix
import MockAPNs

/// Where a control API is, from a `--control` URL: `http://HOST[:PORT][/PREFIX]`.
///
/// The control API speaks plain HTTP/1.1 on loopback, so only `http` is taken; a missing
/// port means the control API's default, 2198.
struct ControlURL: Sendable, Equatable {
    var host: String
    var port: Int
    /// What the URL had after the authority, without a trailing slash ("" for none).
    var pathPrefix: String
    /// The text the user gave, for messages.
    var text: String

    init(_ text: String) throws(ControlRequestError) {
        self.text = text
        let usage = "--control takes a URL like http://127.0.0.1:\(ObservationOptions.defaultControlPort)"
        guard text.hasPrefix("http://") else {
            if text.hasPrefix("https://") {
                throw ControlRequestError("\(usage), not \(text): the control API speaks plain HTTP (no TLS)")
            }
            throw ControlRequestError("\(usage), not \(text)")
        }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = rest.dropFirst(authority.count)
        guard !path.contains(where: { $0 == "?" || $0 == "#" }) else {
            throw ControlRequestError("\(usage), not \(text): no query or fragment")
        }
        while path.hasSuffix("/") { path = path.dropLast() }
        guard !authority.contains(where: { $0 == "@" }) else { throw ControlRequestError("\(usage), not \(text): no user name") }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            // An IPv6 literal: [::1] or [::1]:2198.
            guard let close = authority.firstIndex(of: "]") else { throw ControlRequestError("\(usage), not \(text): unclosed [") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ControlRequestError("\(usage), not \(text)") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw ControlRequestError("\(usage), not \(text): no host") }
        var port = ObservationOptions.defaultControlPort
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw ControlRequestError("\(usage), not \(text): the port must be 1-65535")
            }
            port = number
        }
        self.host = String(host)
        self.port = port
        self.pathPrefix = String(path)
    }

    /// The Host header: the authority as written, IPv6 literals bracketed.
    var hostHeader: String {
        let name = host.contains(where: { $0 == ":" }) ? "[\(host)]" : host
        return "\(name):\(port)"
    }
}

/// A control API that could not be asked or did not answer: said in one line.
struct ControlRequestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One HTTP/1.1 request to a control API over SwiftNIO. (Not URLSession: on Linux it lives in
/// FoundationNetworking, which links libcurl and some thirty shared libraries into the binary,
/// and the release binary must run where none of them is installed.)
struct ControlClient: Sendable {
    var url: ControlURL
    /// Sent as `Authorization: Bearer` when given (a server on another machine asks for it).
    var token: BearerToken? = nil

    /// An answer: its status and its body, as bytes and as text.
    struct Answer: Sendable {
        var status: Int
        var bytes: [UInt8]
        var body: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// GETs `path` (which starts with `/` and may carry a query) and reads the whole answer,
    /// within `timeout` from connecting to the answer's end.
    func get(_ path: String, timeout: Duration) async throws(ControlRequestError) -> Answer {
        try await send(.GET, path, timeout: timeout)
    }

    /// Sends `method` to `path` with `body` as JSON (`Content-Type: application/json`, which
    /// the control API asks of every request that is not GET or HEAD, with a body or without),
    /// and reads the whole answer within `timeout`.
    func send(_ method: HTTPMethod, _ path: String, body: String? = nil, timeout: Duration) async throws(ControlRequestError) -> Answer {
        let url = self.url
        let token = self.token
        do {
            return try await withThrowingTaskGroup(of: Answer?.self) { group in
                group.addTask { try await Self.exchange(url: url, token: token, method: method, path: path, body: body, timeout: timeout) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw ControlRequestError("cannot reach the control API at \(url.text): no answer within \(timeout.seconds) s")
                }
                return answer
            }
        } catch let error as ControlRequestError {
            throw error
        } catch {
            throw ControlRequestError("cannot reach the control API at \(url.text): \(Self.words(error))")
        }
    }

    private static func exchange(
        url: ControlURL, token: BearerToken?, method: HTTPMethod, path: String, body: String?, timeout: Duration
    ) async throws -> Answer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.nanoseconds(Int64(timeout.seconds * 1_000_000_000)))
            .connect(host: url.host, port: url.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: url.pathPrefix + path)
            head.headers.add(name: "host", value: url.hostHeader)
            head.headers.add(name: "accept", value: "application/json")
            if let token { head.headers.add(name: "authorization", value: "Bearer \(token.value)") }
            head.headers.add(name: "connection", value: "close")
            let bytes = body.map { ByteBuffer(string: $0) }
            if method != .GET, method != .HEAD {
                head.headers.add(name: "content-type", value: "application/json")
                head.headers.add(name: "content-length", value: "\(bytes?.readableBytes ?? 0)")
            }
            try await outbound.write(.head(head))
            if let bytes { try await outbound.write(.body(.byteBuffer(bytes))) }
            try await outbound.write(.end(nil))
            var status: Int?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let response): status = Int(response.status.code)
                case .body(var bytes): body.writeBuffer(&bytes)
                case .end:
                    guard let status else { break }
                    return Answer(status: status, bytes: Array(buffer: body))
                }
            }
            throw ControlRequestError("the control API at \(url.text) closed the connection before its answer ended")
        }
    }

    /// A connection failure in a few words, instead of NIO's error dump.
    static func words(_ error: any Error) -> String {
        if let connection = error as? NIOConnectionError {
            if let failure = connection.connectionErrors.first { return words(failure.error) }
            if connection.dnsAError != nil || connection.dnsAAAAError != nil { return "unknown host \(connection.host)" }
            return "no address for \(connection.host)"
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return "connection refused"
            case ETIMEDOUT: return "timed out"
            case ENETUNREACH, EHOSTUNREACH: return "no route to the host"
            case ECONNRESET: return "the connection was reset"
            default: return String(cString: strerror(io.errnoCode))
            }
        }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout: return "timed out connecting"
            case .eof, .ioOnClosedChannel, .alreadyClosed: return "the connection was closed"
            default: return "\(channel)"
            }
        }
        if error is HTTPParserError { return "the answer is not HTTP/1.1 (is this the control port?)" }
        if error is SocketAddressError { return "unknown host" }
        return "\(error)"
    }
}

extension Duration {
    /// Whole and fractional seconds, for messages and NIO's time amounts.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
