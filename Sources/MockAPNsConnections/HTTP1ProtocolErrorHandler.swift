import MockAPNsWire
import NIOCore
import NIOHTTP1

/// Answers a request that breaks HTTP/1.1's message syntax (NIO's parser found it: a
/// `Transfer-Encoding` beside a `Content-Length`, two `Content-Length`s, a bad chunk size, a
/// folded header line, a NUL, a header block over the decoder's limit, a bad request line)
/// with `400 Bad Request` and `Connection: close`, and then closes the socket, as the answer
/// says. Every HTTP/1.1 listener (the web push endpoint, the control API) has it after NIO's
/// decoder, so they answer alike; NIO's own handler writes the same 400 and leaves the socket
/// open for "the rest of the pipeline" to close.
///
/// An answer already being written when the mistake is found is finished first, then the
/// 400 follows it. Errors that are not the parser's pass on.
package final class HTTP1ProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case serving
        /// The 400 waits for the answer being written to end.
        case refusalDue
        /// The 400 went out (or is going): the connection is closing, later errors say nothing new.
        case refused
    }

    /// Headers every answer of the listener carries (the control API's anti-framing headers).
    private let answerHeaders: [HTTPHeader]
    /// Told what was wrong, once per connection, on the event loop (the listener journals it).
    private let onRefusal: (String) -> Void
    private var state = State.serving
    private var answerInProgress = false

    package init(answerHeaders: [HTTPHeader] = [], onRefusal: @escaping (String) -> Void = { _ in }) {
        self.answerHeaders = answerHeaders
        self.onRefusal = onRefusal
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let parserError: HTTPParserError?
        switch error {
        case let error as HTTPParserError:
            parserError = error
        case ByteToMessageDecoderError.dataReceivedInErrorState(let error as HTTPParserError, _):
            // Bytes that came after the mistake: the decoder repeats it.
            parserError = error
        default:
            parserError = nil
        }
        guard let parserError else { return context.fireErrorCaught(error) }
        guard case .serving = state else { return }
        onRefusal(Self.explanation(of: parserError))
        if answerInProgress {
            state = .refusalDue
        } else {
            refuse(context: context)
        }
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            // An interim answer (1xx, never sent here) would be followed by the final one.
            if head.status.code >= 200 { answerInProgress = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            answerInProgress = false
            context.write(data, promise: promise)
            if case .refusalDue = state { refuse(context: context) }
        }
    }

    private func refuse(context: ChannelHandlerContext) {
        state = .refused
        HTTP1Answer.write(status: .badRequest, headers: answerHeaders, closing: true, context: context)
    }

    /// The mistake in plain words, with NIO's name for it.
    package static func explanation(of error: HTTPParserError) -> String {
        let words: String
        switch error {
        case .unexpectedContentLength: words = "Content-Length together with Transfer-Encoding, or two Content-Length lines"
        case .invalidContentLength: words = "a Content-Length that is not one number"
        case .invalidChunkSize: words = "a chunk size that is not a hexadecimal number"
        case .headerOverflow: words = "a header block over the decoder's limit"
        case .invalidHeaderToken: words = "a header line that is not a name, a colon and a value (a folded line, a space before the colon)"
        case .invalidCharactersUsed: words = "a character HTTP/1.1 forbids there (a NUL, a control character)"
        case .invalidMethod: words = "a request line whose method is not a token"
        case .invalidURL, .invalidPath, .invalidHost, .invalidPort, .invalidQueryString, .invalidFragment:
            words = "a request target that is not a URI"
        case .invalidVersion: words = "a request line without HTTP/1.x"
        case .lfExpected: words = "a line that does not end with CRLF"
        case .invalidConstant: words = "a request line or header that is not HTTP/1.1"
        default: words = "a message that is not HTTP/1.1"
        }
        return "\(words) (\(error))"
    }
}

@available(*, unavailable)
extension HTTP1ProtocolErrorHandler: Sendable {}

/// One whole answer on an HTTP/1.1 connection (a low-level 400, a deadline's 408, the web push
/// listener's answers): `Content-Length` always, `Connection: close` and the socket closed once
/// the answer is out when `closing`.
package enum HTTP1Answer {
    /// - Parameter onWritten: told, on the event loop, whether the answer went out (before the
    ///   connection closes, when `closing`).
    package static func write(
        status: HTTPResponseStatus, headers extra: [HTTPHeader] = [], body: [UInt8] = [], closing: Bool,
        context: ChannelHandlerContext, onWritten: ((Bool) -> Void)? = nil
    ) {
        var headers = HTTPHeaders()
        for field in extra { headers.add(name: field.name, value: field.value) }
        headers.replaceOrAdd(name: "content-length", value: String(body.count))
        if closing { headers.replaceOrAdd(name: "connection", value: "close") }
        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: written)
        guard closing || onWritten != nil else { return }
        let channel = context.channel
        let told = NIOLoopBound(onWritten, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { result in
            if case .success = result { told.value?(true) } else { told.value?(false) }
            if closing { channel.close(promise: nil) }
        }
    }

    /// The bytes `write` puts on the wire (inside TLS) for an answer of `status` with `headers`
    /// and a body of `bodyLength` bytes: status line, the headers NIO's encoder writes (with
    /// `content-length`, and `connection` when `closing`), blank line, body.
    package static func wireLength(status: Int, headers: [HTTPHeader], bodyLength: Int, closing: Bool) -> Int {
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        var length = "HTTP/1.1 \(status) \(reason)\r\n".utf8.count
        var fields = headers.filter { $0.name != "content-length" && (!closing || $0.name != "connection") }
        fields.append(HTTPHeader(name: "content-length", value: String(bodyLength)))
        if closing { fields.append(HTTPHeader(name: "connection", value: "close")) }
        for field in fields { length += field.name.utf8.count + 2 + field.value.utf8.count + 2 }
        return length + 2 + bodyLength
    }
}
