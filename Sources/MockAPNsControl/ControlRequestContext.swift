import Hummingbird
import NIOCore

/// The request context of the control API: Hummingbird's own, and the two addresses of the
/// connection the request came on, which the access checks need (`ControlAccessMiddleware`).
package struct ControlRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The peer's IP address; `nil` when the channel has none (in-process tests), which counts
    /// as another machine.
    package let peerAddress: String?
    /// The local IP address the connection arrived on.
    package let localAddress: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
        localAddress = source.channel.localAddress?.ipAddress
    }
}
