import Logging
import MockAPNsTLS

/// How both legacy listeners log a refused TLS handshake: why, and what the client offered,
/// since an old provider offering only SSLv3 or TLS 1.0 is the usual cause.
enum LegacyTLSLog {
    static func handshakeRefused(_ failed: TLSHandshakeFailed, listener: String, logger: Logger) {
        var text = "\(listener): TLS handshake refused: \(failed.reason)"
        if let hello = failed.clientHello {
            text += "; the client offered [\(hello.offeredVersions.joined(separator: ", "))]"
            text += " with \(hello.offeredCipherSuites.count) cipher suites"
            if let name = hello.serverName { text += ", server name \(name)" }
        }
        if let alert = failed.alertSent { text += "; alert sent: \(alert)" }
        if let alert = failed.alertReceived { text += "; alert received: \(alert)" }
        logger.notice("\(text)")
    }
}
