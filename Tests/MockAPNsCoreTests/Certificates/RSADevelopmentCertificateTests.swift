import _CryptoExtras
import Crypto
import Foundation
import MockAPNsCore
import X509
import XCTest
import MockAPNsDevelopmentPKI

/// `mockapns certs generate --key-type rsa`: RSA 2048 certificates, as Apple issues them,
/// with the same shape and the same chain as the ECDSA set; provider keys stay ES256.
final class RSADevelopmentCertificateTests: XCTestCase {
    func testEveryCertificateIsRSA2048AndSignedWithSHA256RSA() async throws {
        let set = try DevelopmentCertificateFactory(keyType: .rsa).generate()
        let root = set.certificateAuthority.certificate
        for (name, credential) in [
            ("ca", set.certificateAuthority), ("server", set.server), ("sandbox", set.sandboxClient),
            ("production", set.productionClient), ("universal", set.universalClient),
        ] {
            let key = try XCTUnwrap(_RSA.Signing.PublicKey(credential.certificate.publicKey), "\(name) has no RSA key")
            XCTAssertEqual(key.keySizeInBits, 2048, name)
            XCTAssertEqual(credential.certificate.signatureAlgorithm, .sha256WithRSAEncryption, name)
            XCTAssertTrue(credential.privateKeyPEM.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"), name)
            XCTAssertEqual(credential.privateKey.publicKey, credential.certificate.publicKey, name)
            guard name != "ca" else { continue }
            var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy() }
            guard case .validCertificate = await verifier.validate(leaf: credential.certificate, intermediates: CertificateStore()) else {
                XCTFail("\(name) does not verify against the RSA development CA")
                continue
            }
        }
        for key in set.providerKeys {
            XCTAssertTrue(key.p8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"), "provider keys stay P-256 (ES256)")
        }
    }

    func testAnRSAClientCertificateNamesItsTopicsAndEnvironments() throws {
        let set = try DevelopmentCertificateFactory(keyType: .rsa).generate()
        let identity = try CertificateIdentity(derEncoded: try set.universalClient.certificateDER())
        XCTAssertEqual(identity.topics.first, "com.example.app")
        XCTAssertTrue(identity.topics.contains("com.example.app.voip"))
        let sandbox = try CertificateIdentity(derEncoded: try set.sandboxClient.certificateDER())
        XCTAssertEqual(sandbox.environments, [.sandbox])
    }

    func testTheDefaultIsStillECDSA() throws {
        let set = try DevelopmentCertificateFactory().generate()
        XCTAssertNotNil(P256.Signing.PublicKey(set.server.certificate.publicKey))
        XCTAssertEqual(set.server.certificate.signatureAlgorithm, .ecdsaWithSHA256)
    }
}
