// The legacy gateway and feedback service in the server: their configuration keys, and the
// settings and TLS the configuration gives their listeners (MockAPNsLegacyServer runs them).

import MockAPNsConnections
import MockAPNsCore
import MockAPNsLegacyServer
import MockAPNsTLS

extension MockAPNsConfiguration {
    /// What the configuration says about one environment's legacy gateway and feedback
    /// listeners, for `LegacyListeners`.
    func legacyListenerSettings(_ environment: APNsEnvironment) -> LegacyListeners.Settings {
        LegacyListeners.Settings(
            host: host,
            gatewayName: listenerName("legacy gateway", environment),
            feedbackName: listenerName("legacy feedback", environment),
            feedbackServiceName: listenerName("feedback service", environment),
            gatewayPortSetting: portSetting(
                "--gateway-port (legacy.gatewayPort)", production: "--production-gateway-port (productionPorts.gateway)", environment),
            feedbackPortSetting: portSetting(
                "--feedback-port (legacy.feedbackPort)", production: "--production-feedback-port (productionPorts.feedback)", environment),
            tls: legacyTLSConfiguration,
            sessionOptions: legacy.sessionOptions,
            frameTimeout: ConnectionTimeouts.amount(timeouts.legacyFrameSeconds),
            handshakeTimeout: ConnectionTimeouts.amount(timeouts.tlsHandshakeSeconds),
            idleTimeout: ConnectionTimeouts.amount(timeouts.legacyIdleSeconds)
        )
    }

    /// Both legacy ports: a client certificate chaining to the same roots as HTTP/2 is
    /// required, TLS 1.2 at most (clients of that era miss the error packet under TLS 1.3),
    /// and TLS 1.0 and 1.1 at security level 0 when old clients are allowed.
    private var legacyTLSConfiguration: TLSConfiguration {
        let allowOld = legacy.allowOldTLS
        return TLSConfiguration(
            certificateChain: [.file(certificateFile(tls.certificateChain, default: "server.pem"))],
            privateKey: .file(certificateFile(tls.privateKey, default: "server-key.pem")),
            alpn: .none,
            clientCertificate: .require,
            trustRootsPEM: [.file(certificateFile(tls.clientTrustRoots, default: "ca.pem"))],
            minimumVersion: allowOld ? .tlsv1 : .tlsv12,
            maximumVersion: .tlsv12,
            securityLevel: allowOld ? 0 : nil,
            keyLogFile: ProcessEnvironment.value(of: "SSLKEYLOGFILE"),
            versionRefusalAdvice: allowOld
                ? "the legacy ports accept nothing older than TLS 1.0"
                : "TLS 1.0 and 1.1 are refused unless --legacy-allow-old-tls (legacy.allowOldTLS) is set",
            untrustedServerAdvice: untrustedServerAdvice,
            sslRefusalAdvice: "Apple's gateway and feedback service have refused it since October 2014"
        )
    }
}
