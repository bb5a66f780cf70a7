import Crypto
import _CryptoExtras
import SwiftASN1
import X509
import MockAPNsCore

/// A certificate and its private key, with the PEM text written to `certs-dev`.
package struct DevelopmentCredential: Sendable {
    /// The certificate.
    package var certificate: Certificate
    /// The certificate's private key (P-256, or RSA 2048 in an RSA set).
    package var privateKey: Certificate.PrivateKey
    /// The private key as PEM: PKCS#8 `PRIVATE KEY` for P-256, PKCS#1 `RSA PRIVATE KEY` for RSA.
    package var privateKeyPEM: String

    package init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) {
        self.certificate = certificate
        self.privateKey = Certificate.PrivateKey(privateKey)
        self.privateKeyPEM = privateKey.pemRepresentation + "\n"
    }

    package init(certificate: Certificate, privateKey: _RSA.Signing.PrivateKey) {
        self.certificate = certificate
        self.privateKey = Certificate.PrivateKey(privateKey)
        self.privateKeyPEM = privateKey.pemRepresentation + "\n"
    }

    /// A credential read back from its PEM files.
    package init(certificate: Certificate, privateKey: Certificate.PrivateKey, privateKeyPEM: String) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.privateKeyPEM = privateKeyPEM
    }

    /// The certificate's DER encoding, as a TLS peer presents it.
    package func certificateDER() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The certificate as a `CERTIFICATE` PEM block.
    package func certificatePEM() throws -> String {
        try certificate.serializeAsPEM().pemString + "\n"
    }

    /// The certificate followed by its key, the single file several client libraries take.
    package func bundlePEM() throws -> String {
        try certificatePEM() + privateKeyPEM
    }
}
