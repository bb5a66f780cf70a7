/// How a server treats Application-Layer Protocol Negotiation.
package enum ALPNPolicy: Sendable, Hashable {
    /// ALPN is ignored: nothing is selected and nothing is refused.
    case none
    /// The server selects the first of these protocols (in this order of preference) that the
    /// client offers. A client offering none of them, or sending no ALPN extension at all, is
    /// refused with the fatal alert `no_application_protocol` (120).
    case require([String])
    /// Like `require`, except that a client sending no ALPN extension at all is accepted: it
    /// is expected to speak the first protocol by prior knowledge. (APNs serves HTTP/2 to
    /// such clients; a client that offers ALPN without any of these is still refused.)
    case select([String])

    /// The protocols the server selects from, in preference order; `nil` for `.none`.
    package var protocols: [String]? {
        switch self {
        case .none: return nil
        case .require(let protocols), .select(let protocols): return protocols
        }
    }

    /// Whether a ClientHello without an ALPN extension is refused.
    package var refusesClientsWithoutALPN: Bool {
        if case .require = self { return true }
        return false
    }
}

/// Whether a server asks clients for a certificate.
package enum ClientCertificateMode: Sendable, Hashable {
    /// No certificate is requested.
    case none
    /// A certificate is requested but optional. A certificate that does not chain to the trust
    /// roots is accepted and reported as `.untrusted`, so the application can answer at its
    /// own layer; an expired certificate fails the handshake with `certificate_expired`.
    case request
    /// A certificate is required and must chain to the trust roots. A missing certificate fails
    /// with `certificate_required` (TLS 1.3) or `handshake_failure` (TLS 1.2 and older), an
    /// untrusted one with `unknown_ca`, an expired one with `certificate_expired`.
    case require
}

/// Server-side TLS settings for one listener.
package struct TLSConfiguration: Sendable {
    /// The server certificate first, then any intermediates. Each source may hold several
    /// certificates; they are used in order.
    package var certificateChain: [PEMSource]
    /// The private key of the server certificate.
    package var privateKey: PEMSource
    /// ALPN handling; `.require(["h2"])` for the HTTP/2 provider API.
    package var alpn: ALPNPolicy
    /// Whether clients are asked for a certificate.
    package var clientCertificate: ClientCertificateMode
    /// CA certificates that client certificates are verified against. Their subjects are also
    /// sent to the client as acceptable issuers.
    package var trustRootsPEM: [PEMSource]
    /// Lowest protocol version accepted.
    package var minimumVersion: TLSVersion
    /// Highest protocol version accepted.
    package var maximumVersion: TLSVersion
    /// OpenSSL security level; `nil` keeps the system default. Level 0 is needed for TLS 1.0
    /// and 1.1 clients, whose signature algorithms newer defaults reject.
    package var securityLevel: Int?
    /// When set, session secrets are appended to this file in NSS key log format
    /// (the SSLKEYLOGFILE convention), so captures can be decrypted in Wireshark.
    package var keyLogFile: String?
    /// OpenSSL cipher string for TLS 1.2 and older (e.g. "ECDHE+AESGCM:AES256-SHA");
    /// `nil` keeps OpenSSL's default. TLS 1.3 suites are not affected.
    package var cipherList: String?
    /// What a client refused over ALPN is told the listener needs, after the protocols it
    /// offered (in the handshake failure's reason); `nil` says "this listener requires one of
    /// [...]". The application's own words go here (for APNs: that it requires HTTP/2).
    package var alpnRefusalExplanation: String?
    /// What a client that offered only TLS versions this listener refuses is told to do,
    /// after the versions it offered and the ones accepted: the application's setting that
    /// allows them, or why it cannot. `nil` says nothing more.
    package var versionRefusalAdvice: String?
    /// What a client that refused this listener's certificate (it answered the handshake with
    /// `unknown_ca`, `bad_certificate` or `certificate_unknown`) is told to do: the
    /// application's words naming the CA file to give it. `nil` says nothing more. Not given
    /// when the client's SNI names a host the certificate does not hold: that client is told
    /// the certificate's names instead, since no CA file would help it.
    package var untrustedServerAdvice: String?
    /// What a client that offered only SSLv3 (or SSLv2) is told after the library's own
    /// words (no setting enables SSL: it is insecure, and OpenSSL 3 has none), in place of
    /// `versionRefusalAdvice`, whose settings would not help it: the application's words,
    /// such as since when its real counterpart refuses SSL. `nil` says nothing more.
    package var sslRefusalAdvice: String?

    package init(
        certificateChain: [PEMSource],
        privateKey: PEMSource,
        alpn: ALPNPolicy = .none,
        clientCertificate: ClientCertificateMode = .none,
        trustRootsPEM: [PEMSource] = [],
        minimumVersion: TLSVersion = .tlsv12,
        maximumVersion: TLSVersion = .tlsv13,
        securityLevel: Int? = nil,
        keyLogFile: String? = nil,
        cipherList: String? = nil,
        alpnRefusalExplanation: String? = nil,
        versionRefusalAdvice: String? = nil,
        untrustedServerAdvice: String? = nil,
        sslRefusalAdvice: String? = nil
    ) {
        self.versionRefusalAdvice = versionRefusalAdvice
        self.untrustedServerAdvice = untrustedServerAdvice
        self.sslRefusalAdvice = sslRefusalAdvice
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.alpn = alpn
        self.alpnRefusalExplanation = alpnRefusalExplanation
        self.clientCertificate = clientCertificate
        self.trustRootsPEM = trustRootsPEM
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.securityLevel = securityLevel
        self.keyLogFile = keyLogFile
        self.cipherList = cipherList
    }
}

/// Client-side TLS settings, used by tests and tools that talk to the server.
package struct TLSClientConfiguration: Sendable {
    /// Protocols offered through ALPN, in order of preference; empty sends no ALPN extension.
    package var alpnOffer: [String]
    /// A client certificate (leaf first) to present when the server asks; empty presents none.
    package var certificateChain: [PEMSource]
    /// The private key of the client certificate.
    package var privateKey: PEMSource?
    /// CA certificates the server certificate must chain to. Empty skips verification of the
    /// server (the outcome is still reported in `TLSSessionInfo.peerCertificate`).
    package var trustRootsPEM: [PEMSource]
    /// Whether the server certificate must also (or, without `trustRootsPEM`, only) chain to
    /// the system's trust store (OpenSSL's default paths): how a client of a public service
    /// such as Apple's verifies it.
    package var trustsSystemStore = false
    /// Lowest protocol version offered.
    package var minimumVersion: TLSVersion
    /// Highest protocol version offered.
    package var maximumVersion: TLSVersion
    /// OpenSSL security level; `nil` keeps the system default.
    package var securityLevel: Int?
    /// When set, session secrets are appended to this file in NSS key log format.
    package var keyLogFile: String?
    /// OpenSSL cipher string for TLS 1.2 and older; `nil` keeps OpenSSL's default.
    package var cipherList: String?

    package init(
        alpnOffer: [String] = [],
        certificateChain: [PEMSource] = [],
        privateKey: PEMSource? = nil,
        trustRootsPEM: [PEMSource] = [],
        minimumVersion: TLSVersion = .tlsv12,
        maximumVersion: TLSVersion = .tlsv13,
        securityLevel: Int? = nil,
        keyLogFile: String? = nil,
        cipherList: String? = nil
    ) {
        self.alpnOffer = alpnOffer
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.trustRootsPEM = trustRootsPEM
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.securityLevel = securityLevel
        self.keyLogFile = keyLogFile
        self.cipherList = cipherList
    }
}
