import Crypto
import SwiftASN1
import X509

/// A certificate and its private key, with the PEM text written to `certs-dev`.
public struct DevelopmentCredential: Sendable {
    /// The certificate.
    public var certificate: Certificate
    /// The certificate's private key (P-256).
    public var privateKey: P256.Signing.PrivateKey

    public init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// The certificate's DER encoding, as a TLS peer presents it.
    public func certificateDER() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The certificate as a `CERTIFICATE` PEM block.
    public func certificatePEM() throws -> String {
        try certificate.serializeAsPEM().pemString + "\n"
    }

    /// The private key as a PKCS#8 `PRIVATE KEY` PEM block.
    public var privateKeyPEM: String {
        privateKey.pemRepresentation + "\n"
    }

    /// The certificate followed by its key, the single file several client libraries take.
    public func bundlePEM() throws -> String {
        try certificatePEM() + privateKeyPEM
    }
}
