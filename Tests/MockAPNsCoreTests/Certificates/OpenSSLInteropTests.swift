import Foundation
import MockAPNsCore
import XCTest
import MockAPNsDevelopmentPKI

/// Cross-checks against an independent implementation: certificates made by the `openssl`
/// tool must read the same way, and the development set must verify with `openssl verify`.
final class OpenSSLInteropTests: XCTestCase {
    /// An Apple-shaped universal certificate written the way pushy's test scripts write theirs:
    /// the topic list spelled out with `ASN1:SEQUENCE` sections in an openssl.cnf.
    private let universalConfiguration = """
        [req]
        distinguished_name = subject
        prompt = no
        string_mask = utf8only

        [subject]
        UID = com.x
        CN = Apple Push Services: com.x
        OU = TEAMX12345
        O = Interop Test
        C = US

        [client]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth
        1.2.840.113635.100.6.3.1 = ASN1:NULL
        1.2.840.113635.100.6.3.2 = ASN1:NULL
        1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics

        [topics]
        t1 = UTF8:com.x
        t1kinds = SEQUENCE:kinds_app
        t2 = UTF8:com.x.voip
        t2kinds = SEQUENCE:kinds_voip
        t3 = UTF8:com.x.complication
        t3kinds = SEQUENCE:kinds_complication

        [kinds_app]
        k = UTF8:app
        [kinds_voip]
        k = UTF8:voip
        [kinds_complication]
        k = UTF8:complication

        """

    private let sandboxConfiguration = """
        [req]
        distinguished_name = subject
        prompt = no
        string_mask = utf8only

        [subject]
        UID = com.y
        CN = Apple Development IOS Push Services: com.y
        OU = TEAMY12345
        C = US

        [client]
        extendedKeyUsage = clientAuth
        1.2.840.113635.100.6.3.1 = ASN1:NULL

        """

    private func makeCertificate(_ openssl: OpenSSL, configuration: String, name: String) throws -> [UInt8] {
        try openssl.write(configuration, to: "\(name).cnf")
        let result = try openssl.run([
            "req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(name)-key.pem", "-out", "\(name).der", "-outform", "DER", "-days", "30",
            "-config", "\(name).cnf", "-extensions", "client",
        ])
        XCTAssertEqual(result.status, 0, result.output)
        return try openssl.read("\(name).der")
    }

    func testReadsAUniversalCertificateMadeByOpenSSL() throws {
        let openssl = try OpenSSL.inTemporaryDirectory(for: self)
        let der = try makeCertificate(openssl, configuration: universalConfiguration, name: "universal")
        let identity = try CertificateIdentity(derEncoded: der)

        XCTAssertEqual(identity.uid, "com.x")
        XCTAssertEqual(identity.commonName, "Apple Push Services: com.x")
        XCTAssertEqual(identity.organizationalUnit, "TEAMX12345")
        XCTAssertEqual(identity.subject, "C=US,O=Interop Test,OU=TEAMX12345,CN=Apple Push Services: com.x,UID=com.x")
        XCTAssertEqual(identity.environments, [.sandbox, .production])
        XCTAssertEqual(identity.topicList, [
            CertificateTopic(topic: "com.x", kinds: ["app"]),
            CertificateTopic(topic: "com.x.voip", kinds: ["voip"]),
            CertificateTopic(topic: "com.x.complication", kinds: ["complication"]),
        ])
        XCTAssertNil(identity.defaultTopic)

        // openssl's own fingerprint of the same bytes.
        let fingerprint = try openssl.run(["x509", "-inform", "DER", "-in", "universal.der", "-noout", "-fingerprint", "-sha256"])
        let opensslHex = fingerprint.output.split(separator: "=").last.map {
            $0.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        }
        XCTAssertEqual(identity.sha256Fingerprint, opensslHex)
    }

    func testTopicListBytesMatchOpenSSLs() throws {
        // The same list, encoded by us and by openssl, must be the same DER.
        let openssl = try OpenSSL.inTemporaryDirectory(for: self)
        let der = try makeCertificate(openssl, configuration: universalConfiguration, name: "universal")
        let identity = try CertificateIdentity(derEncoded: der)
        let ours = try CertificateTopicList.encode(try XCTUnwrap(identity.topicList))

        let hex = ours.map { String(format: "%02X", $0) }.joined()
        XCTAssertTrue(
            try openssl.run(["asn1parse", "-inform", "DER", "-in", "universal.der"]).output.contains("[HEX DUMP]:\(hex)"),
            "openssl's extension value differs from CertificateTopicList.encode")
    }

    func testReadsASandboxCertificateMadeByOpenSSL() throws {
        let openssl = try OpenSSL.inTemporaryDirectory(for: self)
        let identity = try CertificateIdentity(derEncoded: makeCertificate(openssl, configuration: sandboxConfiguration, name: "sandbox"))
        XCTAssertEqual(identity.uid, "com.y")
        XCTAssertEqual(identity.environments, [.sandbox])
        XCTAssertNil(identity.topicList)
        XCTAssertEqual(identity.topics, ["com.y"])
        XCTAssertEqual(identity.defaultTopic, "com.y")
    }

    func testOpenSSLVerifiesTheDevelopmentSet() throws {
        let openssl = try OpenSSL.inTemporaryDirectory(for: self)
        try DevelopmentCertificateFactory().generate().write(to: openssl.directory)

        for name in ["server", "client-sandbox", "client-production", "client-universal"] {
            let result = try openssl.run(["verify", "-CAfile", "ca.pem", "\(name).pem"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.output)")
        }
        for (name, purpose) in [("server", "sslserver"), ("client-universal", "sslclient")] {
            let result = try openssl.run(["verify", "-CAfile", "ca.pem", "-purpose", purpose, "\(name).pem"])
            XCTAssertEqual(result.status, 0, "\(name) as \(purpose): \(result.output)")
        }
        let hostname = try openssl.run(["verify", "-CAfile", "ca.pem", "-verify_hostname", "api.sandbox.push.apple.com", "server.pem"])
        XCTAssertEqual(hostname.status, 0, hostname.output)

        let expired = try openssl.run(["verify", "-CAfile", "ca.pem", "client-expired.pem"])
        XCTAssertNotEqual(expired.status, 0)
        XCTAssertTrue(expired.output.contains("certificate has expired"), expired.output)

        let untrusted = try openssl.run(["verify", "-CAfile", "ca.pem", "client-untrusted.pem"])
        XCTAssertNotEqual(untrusted.status, 0)
        XCTAssertTrue(untrusted.output.contains("unable to get local issuer certificate"), untrusted.output)
    }

    func testOpenSSLReadsTheKeysAndBundles() throws {
        let openssl = try OpenSSL.inTemporaryDirectory(for: self)
        let set = try DevelopmentCertificateFactory().generate()
        try set.write(to: openssl.directory)

        for key in set.providerKeys {
            let result = try openssl.run(["pkey", "-in", key.fileName, "-noout", "-text"])
            XCTAssertEqual(result.status, 0, "\(key.fileName): \(result.output)")
            XCTAssertTrue(result.output.contains("prime256v1"), key.fileName)
        }
        for kind in DevelopmentClientCertificate.allCases {
            // The bundle's certificate and key belong together.
            let certificateKey = try openssl.run(["x509", "-in", "\(kind.fileStem).bundle.pem", "-noout", "-pubkey"])
            let bundleKey = try openssl.run(["pkey", "-in", "\(kind.fileStem).bundle.pem", "-pubout"])
            XCTAssertEqual(certificateKey.status, 0, certificateKey.output)
            XCTAssertEqual(certificateKey.output, bundleKey.output, "\(kind)")
        }
    }
}
