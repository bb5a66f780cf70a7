import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS

/// Turns the TLS handler's facts into journal values.
package enum JournalTLS {
    /// An established session, with the client certificate's subject, topics and environments
    /// when one was presented and can be read.
    package static func session(_ info: TLSSessionInfo) -> JournalTLSSession {
        let identity = info.peerCertificateChainDER.first.flatMap { try? CertificateIdentity(derEncoded: $0) }
        let trusted: Bool?
        switch info.peerCertificate {
        case .notPresented: trusted = nil
        case .trusted: trusted = true
        case .untrusted: trusted = false
        }
        return JournalTLSSession(
            version: info.version,
            cipher: info.cipher,
            serverName: info.serverName,
            offeredALPN: info.clientHello?.offeredALPN,
            negotiatedALPN: info.negotiatedALPN,
            clientCertificateSubject: identity?.subject,
            topics: identity?.topics ?? [],
            environments: identity.map { $0.environments.map(\.rawValue).sorted() } ?? [],
            certificateTrusted: trusted,
            resumed: info.sessionResumed
        )
    }

    package static func failure(_ failed: TLSHandshakeFailed) -> JournalTLSFailure {
        JournalTLSFailure(
            reason: failed.reason,
            alertSent: failed.alertSent?.name,
            alertReceived: failed.alertReceived?.name,
            serverName: failed.clientHello?.serverName,
            offeredALPN: failed.clientHello?.offeredALPN,
            offeredVersions: failed.clientHello?.offeredVersions ?? [],
            offeredCipherSuites: failed.clientHello?.offeredCipherSuites ?? []
        )
    }
}
