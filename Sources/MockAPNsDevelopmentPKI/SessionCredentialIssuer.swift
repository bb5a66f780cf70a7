import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1
import X509
import MockAPNsCore

/// Issues a session's client certificate, signed by the development CA the server trusts
/// (`ca.pem` and `ca-key.pem`), so a certificate made while the server runs is trusted at
/// once: no restart, no new trust store.
///
/// The certificate is an Apple push certificate as the universal development one is (both
/// environments, the session's topics in Apple's topic list, `UID` its first topic), with the
/// session's team as its `OU`: the field a connection's session is found by.
package struct SessionCredentialIssuer: Sendable {
    private let authority: DevelopmentCredential

    /// The CA of `certificatePEM` and its key; throws when either is unreadable or they do
    /// not belong together.
    package init(certificatePEM: String, privateKeyPEM: String) throws(DevelopmentCertificateError) {
        do {
            let certificate = try Certificate(pemEncoded: certificatePEM)
            let key = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
            guard key.publicKey == certificate.publicKey else {
                throw DevelopmentCertificateError.encodingFailed("ca-key.pem is not the key of ca.pem")
            }
            authority = DevelopmentCredential(certificate: certificate, privateKey: key, privateKeyPEM: privateKeyPEM)
        } catch let error as DevelopmentCertificateError {
            throw error
        } catch {
            throw .encodingFailed("the development CA could not be read: \(error)")
        }
    }

    /// A client certificate for `teamID`'s `topics` (the first is its `UID`), valid from a
    /// day before `now` for `days` days.
    package func clientCertificate(teamID: String, topics: [String], now: Date = Date(), days: Int = 30)
        throws(DevelopmentCertificateError) -> DevelopmentCredential {
        guard let bundleID = topics.first else { throw .invalidTopic("") }
        for topic in topics where !DevelopmentCertificateOptions.isTopic(topic) { throw .invalidTopic(topic) }
        guard DevelopmentCertificateOptions.isAppleIdentifier(teamID) else { throw .invalidTeamID(teamID) }
        let factory = DevelopmentCertificateFactory(
            options: DevelopmentCertificateOptions(bundleID: bundleID, extraTopics: Array(topics.dropFirst()), teamID: teamID),
            now: now
        )
        do {
            return try factory.makeClient(
                .universal, issuer: authority, notValidBefore: now - 86_400, notValidAfter: now + Double(days) * 86_400)
        } catch {
            throw .encodingFailed(String(describing: error))
        }
    }
}
