import Hummingbird
import Logging
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
    /// The session the request's control token belongs to (set by `ControlAccessMiddleware`):
    /// the routes answer for that session alone. `nil`: the whole server.
    package var session: String?
    /// Whether the request is a change another replica of the fleet made, replayed here
    /// (`ControlReplay`): it passed that replica's access checks, and is not logged again.
    package private(set) var replayed = false

    package init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
        localAddress = source.channel.localAddress?.ipAddress
    }

    /// The context of a change replayed from the fleet's log, for `session` (`nil`: the
    /// whole server).
    package init(replayingFor session: String?, logger: Logger) {
        coreContext = CoreRequestContextStorage(source: ReplaySource(logger: logger))
        peerAddress = nil
        localAddress = nil
        self.session = session
        replayed = true
    }

    private struct ReplaySource: RequestContextSource {
        let logger: Logger
    }
}
