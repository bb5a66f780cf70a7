import Logging
import MockAPNsTLS

/// How every listener logs a refused TLS handshake: why, and what the client offered (an old
/// provider offering only SSLv3 or TLS 1.0, or only `http/1.1`, is the usual cause).
package enum TLSRefusalLog {
    package static func handshakeRefused(_ failed: TLSHandshakeFailed, listener: String, logger: Logger) {
        var text = "\(listener): TLS handshake refused: \(failed.reason)"
        if let hello = failed.clientHello {
            text += "; the client offered [\(hello.offeredVersions.joined(separator: ", "))]"
            text += " with \(hello.offeredCipherSuites.count) cipher suites"
            if let name = hello.serverName { text += ", server name \(name)" }
        }
        if let alert = failed.alertSent { text += "; alert sent: \(alert)" }
        if let alert = failed.alertReceived { text += "; alert received: \(alert)" }
        // A port probe (a readiness check, a health check) connects and leaves without a
        // ClientHello: not worth a notice.
        let isProbe = failed.clientHello == nil && failed.alertSent == nil && failed.alertReceived == nil
        logger.log(level: isProbe ? .debug : .notice, "\(text)")
    }
}
