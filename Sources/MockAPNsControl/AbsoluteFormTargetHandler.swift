import NIOCore
import NIOHTTP1

/// Has the access checks judge the host an absolute-form request target names.
///
/// A client talking to a proxy writes the whole URL as the target
/// (`GET http://evil.example/v1/events HTTP/1.1`). RFC 9112, section 3.2.2 has an origin
/// server take the host from that URL and ignore the Host header. Hummingbird's conversion to
/// HTTP types keeps only the URL's path and takes the first Host header as the authority, so
/// such a request used to be served whatever host it named. Between NIO's decoder and that
/// conversion, this handler writes the target's authority into the first Host line:
/// `ControlAccessPolicy` then answers a target naming another host 421, as it answers such a
/// Host header, and one with user information or no host 400. The other Host lines stay (two
/// are still refused), and none is added where there was none (still refused).
package final class AbsoluteFormTargetHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), let authority = Self.authority(ofAbsoluteForm: head.uri) else {
            context.fireChannelRead(data)
            return
        }
        var replaced = false
        head.headers = HTTPHeaders(head.headers.map { field in
            guard !replaced, field.name.lowercased() == "host" else { return (field.name, field.value) }
            replaced = true
            return (field.name, String(authority))
        })
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The authority of an absolute-form target (`scheme://authority/path?query`), as written
    /// (possibly empty, possibly with user information, for the Host check to refuse); `nil`
    /// for an origin-form target (`/path`) and anything else without `scheme://`.
    package static func authority(ofAbsoluteForm target: String) -> Substring? {
        guard let separator = target.range(of: "://") else { return nil }
        let scheme = target[..<separator.lowerBound]
        // RFC 3986, section 3.1: a letter, then letters, digits, "+", "-" and ".".
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return target[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }
}

@available(*, unavailable)
extension AbsoluteFormTargetHandler: Sendable {}
