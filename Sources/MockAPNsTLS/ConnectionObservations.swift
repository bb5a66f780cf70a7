import MockAPNsWire
/// The rules the OpenSSL callbacks apply; fixed per context.
struct ConnectionPolicy: Sendable {
    var role: OpenSSLContext.Role
    var alpn: ALPNPolicy
    var clientCertificate: ClientCertificateMode
    var versions: ClosedRange<TLSVersion>
    var keyLog: KeyLogWriter?
    /// See `TLSConfiguration.alpnRefusalExplanation`.
    var alpnRefusalExplanation: String?
    /// See `TLSConfiguration.versionRefusalAdvice`.
    var versionRefusalAdvice: String? = nil
    /// See `TLSConfiguration.untrustedServerAdvice`.
    var untrustedServerAdvice: String? = nil
    /// See `TLSConfiguration.sslRefusalAdvice`.
    var sslRefusalAdvice: String? = nil
    /// The server certificate's names (server role): a client that refuses them is told
    /// which names it holds.
    var serverCertificateNames: ServerCertificateNames? = nil
}

/// Per-connection state written by OpenSSL callbacks during the handshake and read by the
/// handler afterwards. It is attached to the `SSL` object (ex_data) without retaining it; the
/// owning `OpenSSLConnection` frees the `SSL` before releasing this object, so callbacks never
/// see it dangling. Used only on the connection's event loop.
final class ConnectionObservations {
    let policy: ConnectionPolicy

    /// What the client offered, captured by the ClientHello callback (server only).
    var clientHello: ClientHelloSummary?
    /// Why our own callback refused the handshake, in plain words.
    var refusal: String?
    /// The first X509 verification error seen for the peer certificate.
    var verifyFailure: (code: Int32, reason: String)?
    /// The last fatal alert this side sent.
    var alertSent: TLSAlert?
    /// The last fatal alert the peer sent.
    var alertReceived: TLSAlert?

    init(policy: ConnectionPolicy) {
        self.policy = policy
    }
}
