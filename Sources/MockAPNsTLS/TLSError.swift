import MockAPNsWire
/// Everything that can go wrong in the TLS layer, each with a message a person can act on.
/// OpenSSL's own reason text is carried along wherever OpenSSL produced one.
package enum TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// OpenSSL could not create an `SSL_CTX`.
    case cannotCreateContext(reason: String)
    /// The configuration is contradictory (for example an empty ALPN list).
    case invalidConfiguration(String)
    /// The certificate chain could not be read or installed.
    case cannotReadCertificateChain(source: String, reason: String)
    /// The private key could not be read or installed.
    case cannotReadPrivateKey(source: String, reason: String)
    /// The private key does not belong to the leaf certificate.
    case privateKeyDoesNotMatchCertificate(reason: String)
    /// The trust roots could not be read.
    case cannotReadTrustRoots(source: String, reason: String)
    /// The key log file could not be opened for appending.
    case cannotOpenKeyLogFile(path: String, reason: String)
    /// OpenSSL could not set up a connection object.
    case cannotCreateConnection(reason: String)
    /// The handshake did not complete. `reason` says why in plain words.
    case handshakeFailed(reason: String, openSSL: String)
    /// The peer sent a fatal alert after the handshake.
    case alertReceived(TLSAlert, openSSL: String)
    /// Reading or writing application data failed.
    case protocolFailure(openSSL: String)

    package var description: String {
        switch self {
        case .cannotCreateContext(let reason):
            return "cannot create TLS context: \(reason)"
        case .invalidConfiguration(let message):
            return "invalid TLS configuration: \(message)"
        case .cannotReadCertificateChain(let source, let reason):
            return "cannot read certificate chain at \(source): \(reason)"
        case .cannotReadPrivateKey(let source, let reason):
            return "cannot read private key at \(source): \(reason)"
        case .privateKeyDoesNotMatchCertificate(let reason):
            return "private key does not match the certificate: \(reason)"
        case .cannotReadTrustRoots(let source, let reason):
            return "cannot read trust roots at \(source): \(reason)"
        case .cannotOpenKeyLogFile(let path, let reason):
            return "cannot open key log file at \(path): \(reason)"
        case .cannotCreateConnection(let reason):
            return "cannot create TLS connection: \(reason)"
        case .handshakeFailed(let reason, let openSSL):
            // Fallback reasons already carry both parts; do not say them twice.
            let prefix = reason.hasPrefix("TLS handshake failed") ? reason : "TLS handshake failed: \(reason)"
            return reason.contains(openSSL) ? prefix : "\(prefix) (OpenSSL: \(openSSL))"
        case .alertReceived(let alert, let openSSL):
            return "peer sent TLS alert \(alert) (OpenSSL: \(openSSL))"
        case .protocolFailure(let openSSL):
            return "TLS failure: \(openSSL)"
        }
    }
}
