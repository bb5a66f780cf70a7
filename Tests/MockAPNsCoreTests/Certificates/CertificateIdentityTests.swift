import Crypto
import Foundation
import MockAPNsCore
import SwiftASN1
import X509
import XCTest
import MockAPNsDevelopmentPKI

final class CertificateIdentityTests: XCTestCase {
    private let options = DevelopmentCertificateOptions(
        bundleID: "com.example.app", extraTopics: ["com.example.app.pushkit.fileprovider"], teamID: "TEAM00000A")

    private func clientIdentity(_ kind: DevelopmentClientCertificate, in set: DevelopmentCertificateSet) throws -> CertificateIdentity {
        try CertificateIdentity(derEncoded: set.client(kind).certificateDER())
    }

    func testSandboxCertificate() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let identity = try clientIdentity(.sandbox, in: set)

        XCTAssertEqual(identity.uid, "com.example.app")
        XCTAssertEqual(identity.commonName, "Apple Development IOS Push Services: com.example.app")
        XCTAssertEqual(identity.organizationalUnit, "TEAM00000A")
        XCTAssertEqual(
            identity.subject,
            "C=US,O=MockAPNs Development,OU=TEAM00000A,CN=Apple Development IOS Push Services: com.example.app,UID=com.example.app")
        XCTAssertEqual(identity.issuer, "CN=MockAPNs Development CA,O=MockAPNs Development,C=US")
        XCTAssertEqual(identity.environments, [.sandbox])
        XCTAssertTrue(identity.allows(environment: .sandbox))
        XCTAssertFalse(identity.allows(environment: .production))
        XCTAssertNil(identity.topicList)
        XCTAssertEqual(identity.topics, ["com.example.app"])
        XCTAssertEqual(identity.defaultTopic, "com.example.app")
        XCTAssertTrue(identity.covers(topic: "com.example.app"))
        XCTAssertFalse(identity.covers(topic: "com.example.app.voip"))
    }

    func testProductionCertificate() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let identity = try clientIdentity(.production, in: set)

        XCTAssertEqual(identity.commonName, "Apple Production IOS Push Services: com.example.app")
        XCTAssertEqual(identity.environments, [.production])
        XCTAssertEqual(identity.topics, ["com.example.app"])
        XCTAssertEqual(identity.defaultTopic, "com.example.app")
    }

    func testUniversalCertificateCarriesTheTopicList() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        for kind in [DevelopmentClientCertificate.universal, .expired, .untrusted] {
            let identity = try clientIdentity(kind, in: set)
            XCTAssertEqual(identity.commonName, "Apple Push Services: com.example.app", "\(kind)")
            XCTAssertEqual(identity.uid, "com.example.app", "\(kind)")
            XCTAssertEqual(identity.environments, [.sandbox, .production], "\(kind)")
            XCTAssertEqual(identity.topicList, [
                CertificateTopic(topic: "com.example.app", kinds: ["app"]),
                CertificateTopic(topic: "com.example.app.voip", kinds: ["voip"]),
                CertificateTopic(topic: "com.example.app.complication", kinds: ["complication"]),
                CertificateTopic(topic: "com.example.app.pushkit.fileprovider", kinds: ["app"]),
            ], "\(kind)")
            XCTAssertEqual(identity.topics.count, 4)
            XCTAssertNil(identity.defaultTopic, "several topics: a request must name one")
            XCTAssertTrue(identity.covers(topic: "com.example.app.voip"))
            XCTAssertFalse(identity.covers(topic: "com.example.other"))
        }
    }

    func testTopicListExtensionIsAppleShapedNonCriticalAndMarkersAreNull() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let extensions = set.universalClient.certificate.extensions

        let topics = try XCTUnwrap(extensions[oid: ApplePushCertificateOID.topics])
        XCTAssertFalse(topics.critical)
        XCTAssertEqual(Array(topics.value), try CertificateTopicList.encode(DevelopmentCertificateFactory(options: options).universalTopicList()))
        for oid in [ApplePushCertificateOID.developmentEnvironment, ApplePushCertificateOID.productionEnvironment] {
            let marker = try XCTUnwrap(extensions[oid: oid])
            XCTAssertEqual(Array(marker.value), [0x05, 0x00], "ASN.1 NULL")
        }
        XCTAssertEqual(try extensions.extendedKeyUsage, try ExtendedKeyUsage([.clientAuth]))
    }

    func testValidityFingerprintAndSerial() throws {
        let now = Date()
        let set = try DevelopmentCertificateFactory(options: options, now: now).generate()
        let der = try set.universalClient.certificateDER()
        let identity = try CertificateIdentity(derEncoded: der)
        let nowMilliseconds = Int64(now.timeIntervalSince1970 * 1000)

        XCTAssertEqual(identity.sha256Fingerprint, SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(identity.serialNumber, set.universalClient.certificate.serialNumber.bytes.map { String(format: "%02x", $0) }.joined())
        XCTAssertTrue(identity.isValid(atMillisecondsSince1970: nowMilliseconds))

        let expired = try clientIdentity(.expired, in: set)
        XCTAssertLessThan(expired.notValidAfter, now)
        XCTAssertFalse(expired.isValid(atMillisecondsSince1970: nowMilliseconds))
    }

    func testRoundTripsThroughJSONForTheJournal() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let identity = try clientIdentity(.universal, in: set)
        let decoded = try JSONDecoder().decode(CertificateIdentity.self, from: JSONEncoder().encode(identity))
        XCTAssertEqual(decoded, identity)
    }

    func testReadsPEM() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let fromPEM = try CertificateIdentity(pemEncoded: set.sandboxClient.certificatePEM())
        XCTAssertEqual(fromPEM, try clientIdentity(.sandbox, in: set))
        XCTAssertThrowsError(try CertificateIdentity(pemEncoded: set.sandboxClient.privateKeyPEM))
    }

    func testMalformedInputThrows() throws {
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let der = try set.universalClient.certificateDER()
        var flipped = der
        flipped[1] ^= 0xff
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("one byte", [0x30]),
            ("garbage", Array("hello, certificate".utf8)),
            ("truncated", Array(der.dropLast(10))),
            ("trailing bytes", der + [0x00]),
            ("broken length", flipped),
            ("a bare sequence", [0x30, 0x00]),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try CertificateIdentity(derEncoded: bytes), name) { error in
                guard case CertificateIdentityError.notACertificate = error else {
                    return XCTFail("\(name): \(error)")
                }
            }
        }
        XCTAssertThrowsError(try CertificateIdentity(pemEncoded: "not PEM"))
    }

    func testMalformedTopicListThrowsAClearError() throws {
        let der = try makeCertificate(extraExtensions: [
            Certificate.Extension(oid: ApplePushCertificateOID.topics, critical: false, value: [0x0c, 0x01, 0x61]),
        ])
        XCTAssertThrowsError(try CertificateIdentity(derEncoded: der)) { error in
            guard case CertificateIdentityError.malformedTopicList(let oid, _) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(oid, "1.2.840.113635.100.6.3.6")
        }
    }

    func testReadsTheVoIPTopicListUnderThreeFour() throws {
        let topics = [CertificateTopic(topic: "com.v.voip", kinds: ["voip"])]
        let der = try makeCertificate(
            uid: "com.v",
            extraExtensions: [
                Certificate.Extension(oid: ApplePushCertificateOID.voipTopics, critical: false, value: try CertificateTopicList.encode(topics)[...]),
            ])
        let identity = try CertificateIdentity(derEncoded: der)
        XCTAssertEqual(identity.topicList, topics)
        XCTAssertEqual(identity.topics, ["com.v.voip"])
        XCTAssertEqual(identity.defaultTopic, "com.v.voip")
    }

    func testEnvironmentFallsBackOnTheCommonNameWithoutApplesOIDs() throws {
        let cases: [(String, Set<APNsEnvironment>)] = [
            ("Apple Development IOS Push Services: com.f", [.sandbox]),
            ("Apple Production IOS Push Services: com.f", [.production]),
            ("Apple Push Services: com.f", [.sandbox, .production]),
            ("Some Client", []),
        ]
        for (commonName, expected) in cases {
            let identity = try CertificateIdentity(derEncoded: makeCertificate(commonName: commonName))
            XCTAssertEqual(identity.environments, expected, commonName)
        }
    }

    func testCertificateWithoutUIDHasNoTopics() throws {
        let identity = try CertificateIdentity(derEncoded: makeCertificate(uid: nil))
        XCTAssertNil(identity.uid)
        XCTAssertEqual(identity.topics, [])
        XCTAssertNil(identity.defaultTopic)
    }

    /// A self-signed certificate with only the parts a test names.
    private func makeCertificate(
        uid: String? = "com.f",
        commonName: String = "Test",
        extraExtensions: [Certificate.Extension] = []
    ) throws -> [UInt8] {
        let key = P256.Signing.PrivateKey()
        var rdns: [RelativeDistinguishedName] = []
        if let uid {
            rdns.append(RelativeDistinguishedName(.init(type: ApplePushCertificateOID.userID, utf8String: uid)))
        }
        rdns.append(RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: commonName)))
        let name = DistinguishedName(rdns)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: Date() - 60,
            notValidAfter: Date() + 3600,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions(extraExtensions),
            issuerPrivateKey: .init(key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
