/// What became of the peer's certificate during the handshake.
///
/// On a server this describes the client certificate; on a client, the server certificate.
package enum PeerCertificateOutcome: Sendable, Hashable {
    /// The peer sent no certificate.
    case notPresented
    /// The certificate chains to the configured trust roots.
    case trusted
    /// The certificate was accepted by the handshake but does not verify; `reason` is
    /// OpenSSL's X509 verification error, e.g. "unable to get local issuer certificate".
    case untrusted(reason: String)
}

/// What the client put in its ClientHello, as seen by a server. Recorded before OpenSSL
/// decides anything, so it is available for refused handshakes too.
package struct ClientHelloSummary: Sendable, Hashable {
    /// The host name from the server_name (SNI) extension.
    package var serverName: String?
    /// The ALPN protocols offered, in the client's order; `nil` when the client sent no ALPN
    /// extension at all.
    package var offeredALPN: [String]?
    /// Versions from the supported_versions extension, else the legacy ClientHello version.
    package var offeredVersions: [String]
    /// Cipher suites offered, by OpenSSL name (hex for suites OpenSSL does not know).
    package var offeredCipherSuites: [String]

    package init(serverName: String?, offeredALPN: [String]?, offeredVersions: [String], offeredCipherSuites: [String]) {
        self.serverName = serverName
        self.offeredALPN = offeredALPN
        self.offeredVersions = offeredVersions
        self.offeredCipherSuites = offeredCipherSuites
    }
}

/// The facts of an established TLS session, for the journal and for authentication.
package struct TLSSessionInfo: Sendable, Hashable {
    /// Negotiated version, OpenSSL spelling: "TLSv1.2", "TLSv1.3".
    package var version: String
    /// Negotiated cipher, OpenSSL name, e.g. "TLS_AES_256_GCM_SHA384".
    package var cipher: String
    /// The protocol selected through ALPN, if any.
    package var negotiatedALPN: String?
    /// On a server, the SNI host name the client sent; on a client, the one it sent.
    package var serverName: String?
    /// On a server, what the client offered (`nil` when the handshake was initiated by us).
    package var clientHello: ClientHelloSummary?
    /// The peer's certificate chain as sent, DER encoded, leaf first; empty when none.
    package var peerCertificateChainDER: [[UInt8]]
    /// The verification outcome of the peer certificate. For a resumed session it is the
    /// outcome recorded when the session was first established.
    package var peerCertificate: PeerCertificateOutcome
    /// Whether an earlier session was resumed (no certificate exchange took place).
    package var sessionResumed: Bool

    /// The ALPN protocols the client offered (empty when it offered none).
    package var offeredALPN: [String] { clientHello?.offeredALPN ?? [] }
    /// The versions the client offered.
    package var offeredVersions: [String] { clientHello?.offeredVersions ?? [] }

    package init(
        version: String,
        cipher: String,
        negotiatedALPN: String?,
        serverName: String?,
        clientHello: ClientHelloSummary?,
        peerCertificateChainDER: [[UInt8]],
        peerCertificate: PeerCertificateOutcome,
        sessionResumed: Bool = false
    ) {
        self.version = version
        self.cipher = cipher
        self.negotiatedALPN = negotiatedALPN
        self.serverName = serverName
        self.clientHello = clientHello
        self.peerCertificateChainDER = peerCertificateChainDER
        self.peerCertificate = peerCertificate
        self.sessionResumed = sessionResumed
    }
}
