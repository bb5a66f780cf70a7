import MockAPNsWire
internal import COpenSSL

/// Turns what the callbacks observed and OpenSSL's terse reason into one sentence a provider
/// developer understands, e.g. "client offered only [TLSv1]; this listener accepts TLSv1.2 to
/// TLSv1.3".
enum HandshakeFailureExplainer {
    static func reason(openSSL: String, observations: ConnectionObservations, firstBytes: [UInt8]) -> String {
        switch observations.policy.role {
        case .server:
            return serverReason(openSSL: openSSL, observations: observations, firstBytes: firstBytes)
        case .client:
            return clientReason(openSSL: openSSL, observations: observations)
        }
    }

    private static func serverReason(openSSL: String, observations: ConnectionObservations, firstBytes: [UInt8]) -> String {
        if let refusal = observations.refusal {
            return refusal
        }
        if let failure = observations.verifyFailure {
            if failure.code == X509_V_ERR_CERT_HAS_EXPIRED {
                return "client certificate has expired"
            }
            return "client certificate is not trusted: \(failure.reason)"
        }
        if openSSL.contains("peer did not return a certificate") {
            return "client presented no certificate; this listener requires one"
        }
        guard let hello = observations.clientHello else {
            return notAClientHello(openSSL: openSSL, firstBytes: firstBytes)
        }
        if openSSL.contains("unsupported protocol") || openSSL.contains("version too low") || openSSL.contains("version too high") {
            let accepted = observations.policy.versions
            let range = accepted.lowerBound == accepted.upperBound
                ? "\(accepted.lowerBound)"
                : "\(accepted.lowerBound) to \(accepted.upperBound)"
            let advice = offersOnlySSL(hello)
                ? ": \(sslNeverAccepted)" + (observations.policy.sslRefusalAdvice.map { "; \($0)" } ?? "") + "; let the client offer TLS 1.2"
                : observations.policy.versionRefusalAdvice.map { ": \($0)" } ?? ""
            return "client offered only [\(hello.offeredVersions.joined(separator: ", "))]; this listener accepts \(range)\(advice)"
        }
        if openSSL.contains("no shared cipher") {
            return "no cipher suite in common; client offered \(hello.offeredCipherSuites.count): [\(hello.offeredCipherSuites.joined(separator: ", "))]"
        }
        if let alert = observations.alertReceived {
            // These three are how clients say they refuse the server's certificate.
            guard [TLSAlert.unknownCA, .badCertificate, .certificateUnknown].contains(alert) else {
                return "client aborted the handshake with alert \(alert)"
            }
            let advice = observations.policy.untrustedServerAdvice.map { "; \($0)" } ?? ""
            // unknown_ca names the issuer as the problem. bad_certificate (OpenSSL, rustls) and
            // certificate_unknown (Java, among others) are also what clients send when the
            // certificate does not hold the name they asked for, which no CA file would fix.
            if alert != .unknownCA, let names = observations.policy.serverCertificateNames {
                if let asked = hello.serverName {
                    if !names.covers(serverName: asked) {
                        return "client aborted the handshake with alert \(alert): it asked for \(asked) (SNI), a name this server's "
                            + "certificate does not hold; the certificate holds \(names.described): let the client connect by one of "
                            + "those, or serve a certificate that holds \(asked)"
                    }
                } else {
                    return "client aborted the handshake with alert \(alert): it refused this server's certificate, and sent no "
                        + "server name (SNI; clients send none when they connect by IP address), so which name it checked is "
                        + "not known here; the certificate holds \(names.described): if the client connects by a name or "
                        + "address not among those, that is why (connect by one of them, or serve a certificate that holds it); "
                        + "otherwise it does not trust the certificate\(advice)"
                }
            }
            return "client aborted the handshake with alert \(alert): it does not trust this server's certificate\(advice)"
        }
        return "TLS handshake failed: \(openSSL)"
    }

    /// Why an SSL client gets no setting to try: the settings that allow old TLS versions
    /// (`versionRefusalAdvice`) cannot reach SSL, so naming them would send its developer in
    /// circles.
    static let sslNeverAccepted = "SSLv3 is never accepted, whatever the settings: it is insecure (POODLE, CVE-2014-3566), "
        + "and OpenSSL 3, which serves TLS here, has no SSLv3 at all"

    /// Whether the client offered nothing newer than SSLv3 (a legacy version of 3.0 or 2.0
    /// and no supported_versions extension).
    private static func offersOnlySSL(_ hello: ClientHelloSummary) -> Bool {
        !hello.offeredVersions.isEmpty && hello.offeredVersions.allSatisfy(sslVersionNames.contains)
    }

    private static let sslVersionNames: Set<String> = [TLSVersion.name(wireValue: 0x0002), TLSVersion.name(wireValue: 0x0300)]

    private static func clientReason(openSSL: String, observations: ConnectionObservations) -> String {
        if let alert = observations.alertReceived {
            return "server refused the handshake with alert \(alert)"
        }
        if let failure = observations.verifyFailure {
            return "server certificate is not trusted: \(failure.reason)"
        }
        return "TLS handshake failed: \(openSSL)"
    }

    /// The alert in a TLS alert record that came first, before any ClientHello
    /// (`15 03 0x 00 02 level description`), if the peer's first bytes are one.
    static func alertBeforeClientHello(_ firstBytes: [UInt8]) -> (alert: TLSAlert, fatal: Bool)? {
        guard firstBytes.count >= 7, firstBytes[0] == 0x15, firstBytes[1] == 0x03, firstBytes[2] <= 0x04,
              firstBytes[3] == 0x00, firstBytes[4] == 0x02 else { return nil }
        return (TLSAlert(code: firstBytes[6]), firstBytes[5] == 2)
    }

    /// Explains a peer whose first bytes were not a TLS handshake record.
    private static func notAClientHello(openSSL: String, firstBytes: [UInt8]) -> String {
        guard let first = firstBytes.first else {
            return "TLS handshake failed: \(openSSL)"
        }
        if let (alert, fatal) = alertBeforeClientHello(firstBytes) {
            // Nothing of this server reached the client yet (no certificate, no version, no
            // ALPN): only the client's own TLS library can have stopped it. It does so when
            // the client asks for protocol versions the library refuses, such as SSLv3 or
            // TLS 1.0 on a system whose OpenSSL allows TLS 1.2 and later: no ClientHello can
            // be built, and the library reports that with an alert.
            return "client sent a \(fatal ? "fatal" : "warning") TLS alert \(alert) before any ClientHello: its own TLS "
                + "library stopped before offering anything, without having seen this server (no certificate or version "
                + "was exchanged). That happens when the client is set to protocol versions its library refuses, such as "
                + "SSLv3 or TLS 1.0 only on a system that allows TLS 1.2 and later; let the client offer TLS 1.2"
        }
        if first == 0x16 {
            return "malformed ClientHello: \(openSSL)"
        }
        let printable = firstBytes.prefix { $0 >= 0x20 && $0 < 0x7f }
        if printable.count >= 4 {
            let text = String(decoding: printable, as: UTF8.self)
            if text.hasPrefix("PRI * HTTP/2") {
                return "peer sent cleartext HTTP/2 (\"\(text)\") to a TLS port"
            }
            return "peer sent plain text (\"\(text)\") to a TLS port, not a TLS ClientHello"
        }
        let hex = firstBytes.prefix(8).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        return "peer did not send a TLS ClientHello (first bytes: \(hex)): \(openSSL)"
    }
}
