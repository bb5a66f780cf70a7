import MockAPNsCore
import MockAPNsJournal
import NIOCore

extension MockAPNsConfiguration {
    /// How long a connection may take over its opening steps, and a legacy connection over
    /// silence and over each frame, before the server closes it (`timeouts` in a
    /// configuration file). Each one that fires is logged and journaled as a `diagnosis`
    /// (`timeout.tlsHandshake`, `timeout.http2Preface`, `timeout.controlRequestHeader`,
    /// `timeout.legacyIdle`, `timeout.legacyFrame`, `timeout.http1Idle`,
    /// `timeout.http1RequestHeader`, `timeout.http1RequestBody`). Apple's own limits are not published;
    /// ten seconds for each step is generous for any real client and short enough that idle
    /// sockets cannot pile up.
    package struct Timeouts: Sendable, Equatable {
        /// From accepting a connection to a finished TLS handshake, on every APNs port.
        package var tlsHandshakeSeconds: Double = 10
        /// From the TLS handshake until the client has sent its connection preface and the
        /// header of its first frame, on the HTTP/2 port.
        package var http2PrefaceSeconds: Double = 10
        /// For each control API request's header block: from the connection's start, or from
        /// the end of the previous answer (a keep-alive connection idling between requests).
        package var controlRequestHeaderSeconds: Double = 10
        /// How long a legacy gateway or feedback connection may receive nothing, from the
        /// TLS handshake or its last byte. Apple asked providers to keep their gateway
        /// connection open across notifications rather than reconnect, and published no idle
        /// limit; five minutes keeps a provider's connection across the pauses of a test run
        /// while a silent client still cannot hold a socket for good (MockAPNs' choice).
        package var legacyIdleSeconds: Double = 300
        /// How long a gateway frame may take from its first byte to its last. Providers write
        /// each frame in one go, so a frame still incomplete after ten seconds (a command-2
        /// item that declares 65,535 bytes and sends ten) will not be finished.
        package var legacyFrameSeconds: Double = 10
        /// HTTP/1.1 web push: from the handshake or an answer's end to the next request's first
        /// byte (then closed); from that byte to the end of its headers, and from there to the
        /// end of its body (then 408 and closed). See `HTTP1RequestGuard`.
        package var webPushIdleSeconds: Double = 60, webPushHeaderSeconds: Double = 10, webPushBodySeconds: Double = 10

        package init() {}

        /// The accepted range of every timeout, in seconds.
        package static let range: ClosedRange<Double> = 0.001...86_400

        static let fileKeys = [
            "tlsHandshakeSeconds", "http2PrefaceSeconds", "controlRequestHeaderSeconds", "legacyIdleSeconds", "legacyFrameSeconds",
            "webPushIdleSeconds", "webPushHeaderSeconds", "webPushBodySeconds",
        ]

        /// Reads the `timeouts` object of a configuration file over these values.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let value = try object.double("tlsHandshakeSeconds", in: Self.range) { tlsHandshakeSeconds = value }
            if let value = try object.double("http2PrefaceSeconds", in: Self.range) { http2PrefaceSeconds = value }
            if let value = try object.double("controlRequestHeaderSeconds", in: Self.range) { controlRequestHeaderSeconds = value }
            if let value = try object.double("legacyIdleSeconds", in: Self.range) { legacyIdleSeconds = value }
            if let value = try object.double("legacyFrameSeconds", in: Self.range) { legacyFrameSeconds = value }
            if let value = try object.double("webPushIdleSeconds", in: Self.range) { webPushIdleSeconds = value }
            if let value = try object.double("webPushHeaderSeconds", in: Self.range) { webPushHeaderSeconds = value }
            if let value = try object.double("webPushBodySeconds", in: Self.range) { webPushBodySeconds = value }
            try object.finish(allowed: Self.fileKeys)
        }
    }
}
