import MockAPNsWire
/// Fired inbound (as a user event) once the handshake completes, before any application data.
package struct TLSHandshakeCompleted: Sendable, Hashable {
    package var session: TLSSessionInfo

    package init(session: TLSSessionInfo) {
        self.session = session
    }
}

/// Fired inbound (as a user event) when a handshake fails, before the alert is flushed and the
/// connection closed. The same failure is also passed to `errorCaught` as a `TLSError`.
package struct TLSHandshakeFailed: Sendable, Hashable {
    /// What the client offered; `nil` when no ClientHello was parsed (or we are the client).
    package var clientHello: ClientHelloSummary?
    /// The fatal alert this side sent, if any.
    package var alertSent: TLSAlert?
    /// The fatal alert the peer sent, if any.
    package var alertReceived: TLSAlert?
    /// Why, in plain words, e.g. "client offered ALPN [http/1.1]; this listener requires one of [h2]".
    package var reason: String
    /// The error also passed to `errorCaught`.
    package var error: TLSError

    package init(clientHello: ClientHelloSummary?, alertSent: TLSAlert?, alertReceived: TLSAlert?, reason: String, error: TLSError) {
        self.clientHello = clientHello
        self.alertSent = alertSent
        self.alertReceived = alertReceived
        self.reason = reason
        self.error = error
    }
}

/// Fired inbound (as a user event) when the peer ends the session cleanly with close_notify.
/// The handler answers with its own close_notify and closes the channel.
package struct TLSCloseNotifyReceived: Sendable, Hashable {
    package init() {}
}
