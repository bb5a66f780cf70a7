import Crypto
import Foundation
import MockAPNsCore
import SwiftASN1
import X509
import XCTest
import MockAPNsDevelopmentPKI

final class DevelopmentCertificateFactoryTests: XCTestCase {
    private func verify(_ leaf: Certificate, trusting root: Certificate) async -> CertificateValidationResult {
        var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy() }
        return await verifier.validate(leaf: leaf, intermediates: CertificateStore())
    }

    func testDevelopmentCAVerifiesTheServerAndTheValidClients() async throws {
        let set = try DevelopmentCertificateFactory().generate()
        let root = set.certificateAuthority.certificate
        for (name, leaf) in [
            ("server", set.server), ("sandbox", set.sandboxClient),
            ("production", set.productionClient), ("universal", set.universalClient),
        ] {
            guard case .validCertificate(let chain) = await verify(leaf.certificate, trusting: root) else {
                XCTFail("\(name) does not verify against the development CA")
                continue
            }
            XCTAssertEqual(chain.last, root, name)
        }
    }

    func testExpiredClientIsExpiredButOtherwiseChains() async throws {
        let now = Date()
        let set = try DevelopmentCertificateFactory(now: now).generate()
        let expired = set.expiredClient.certificate
        XCTAssertLessThan(expired.notValidAfter, now)
        XCTAssertEqual(expired.issuer, set.certificateAuthority.certificate.subject)
        XCTAssertGreaterThan(expired.notValidBefore, set.certificateAuthority.certificate.notValidBefore,
                             "the CA must outlive the expired leaf so expiry is the only failure")
        guard case .couldNotValidate = await verify(expired, trusting: set.certificateAuthority.certificate) else {
            return XCTFail("an expired certificate verified")
        }
    }

    func testUntrustedClientDoesNotChainToTheDevelopmentCA() async throws {
        let set = try DevelopmentCertificateFactory().generate()
        let untrusted = set.untrustedClient.certificate
        XCTAssertNotEqual(untrusted.issuer, set.certificateAuthority.certificate.subject)
        XCTAssertTrue(untrusted.notValidBefore < Date() && Date() < untrusted.notValidAfter, "only the issuer is wrong")
        guard case .couldNotValidate = await verify(untrusted, trusting: set.certificateAuthority.certificate) else {
            return XCTFail("the untrusted client certificate verified against the development CA")
        }
    }

    func testCertificateAuthorityShape() throws {
        // Certificates keep whole seconds only.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let ca = try DevelopmentCertificateFactory(now: now).generate().certificateAuthority.certificate
        XCTAssertEqual(ca.subject, ca.issuer)
        XCTAssertEqual(String(describing: ca.subject), "CN=MockAPNs Development CA,O=MockAPNs Development,C=US")
        XCTAssertEqual(try ca.extensions.basicConstraints, .isCertificateAuthority(maxPathLength: 0))
        XCTAssertGreaterThanOrEqual(ca.notValidAfter.timeIntervalSince(now), 20 * 365 * 86_400)
    }

    func testServerCertificateNamesEveryAPNsHost() throws {
        let server = try DevelopmentCertificateFactory().generate().server.certificate
        let names = try XCTUnwrap(try server.extensions.subjectAlternativeNames)
        let dnsNames = names.compactMap { name -> String? in
            if case .dnsName(let dns) = name { return dns } else { return nil }
        }
        let ipAddresses = names.compactMap { name -> [UInt8]? in
            if case .ipAddress(let bytes) = name { return Array(bytes.bytes) } else { return nil }
        }
        XCTAssertEqual(Set(dnsNames), [
            "localhost", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
            "gateway.push.apple.com", "gateway.sandbox.push.apple.com",
            "feedback.push.apple.com", "feedback.sandbox.push.apple.com",
        ])
        XCTAssertEqual(ipAddresses, [[127, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
        XCTAssertEqual(try server.extensions.extendedKeyUsage, try ExtendedKeyUsage([.serverAuth]))
        XCTAssertEqual(try server.extensions.basicConstraints, .notCertificateAuthority)
        XCTAssertLessThanOrEqual(server.notValidAfter.timeIntervalSince(server.notValidBefore), 825 * 86_400)
    }

    func testFilesAreTheDocumentedSet() throws {
        let files = try DevelopmentCertificateFactory().generate().files()
        var expected: Set<String> = ["ca.pem", "ca-key.pem", "server.pem", "server-key.pem", "keys.json", "README.md",
                                     "AuthKey_BOTHENV001.p8", "AuthKey_SANDBOX001.p8", "AuthKey_PRODUCT001.p8",
                                     "AuthKey_TOPICSBX01.p8", "AuthKey_TEAMBKEY01.p8"]
        for stem in ["sandbox", "production", "universal", "expired", "untrusted"] {
            expected.formUnion(["client-\(stem).pem", "client-\(stem)-key.pem", "client-\(stem).bundle.pem"])
        }
        XCTAssertEqual(Set(files.map(\.name)), expected)
        XCTAssertEqual(files.count, expected.count, "no duplicates")
    }

    func testBundleIsTheCertificateThenItsKey() throws {
        let set = try DevelopmentCertificateFactory().generate()
        for kind in DevelopmentClientCertificate.allCases {
            let documents = try PEMDocument.parseMultiple(pemString: set.client(kind).bundlePEM())
            XCTAssertEqual(documents.map(\.discriminator), ["CERTIFICATE", "PRIVATE KEY"], "\(kind)")
            guard documents.count == 2 else { continue }
            let certificate = try Certificate(derEncoded: documents[0].derBytes)
            let key = try P256.Signing.PrivateKey(derRepresentation: documents[1].derBytes)
            XCTAssertEqual(certificate.publicKey, Certificate.PublicKey(key.publicKey), "\(kind)")
        }
    }

    func testProviderKeysLoadAndMatchTheManifest() throws {
        let set = try DevelopmentCertificateFactory().generate()
        let files = Dictionary(uniqueKeysWithValues: try set.files().map { ($0.name, $0.contents) })

        struct Manifest: Decodable {
            struct Key: Decodable, Equatable {
                var keyId: String
                var teamId: String
                var environment: String
                var scope: String
                var topics: [String]?
            }
            var keys: [Key]
        }
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(try XCTUnwrap(files["keys.json"]).utf8))
        XCTAssertEqual(manifest.keys, [
            .init(keyId: "BOTHENV001", teamId: "TEAM00000A", environment: "both", scope: "team", topics: ["com.example.app"]),
            .init(keyId: "SANDBOX001", teamId: "TEAM00000A", environment: "sandbox", scope: "team", topics: ["com.example.app"]),
            .init(keyId: "PRODUCT001", teamId: "TEAM00000A", environment: "production", scope: "team", topics: ["com.example.app"]),
            .init(keyId: "TOPICSBX01", teamId: "TEAM00000A", environment: "sandbox", scope: "topic", topics: ["com.example.app"]),
            .init(keyId: "TEAMBKEY01", teamId: "TEAM00000B", environment: "both", scope: "team", topics: ["com.example.other"]),
        ])

        for (entry, key) in zip(manifest.keys, set.providerKeys) {
            XCTAssertEqual(entry.keyId.count, 10)
            XCTAssertTrue(entry.keyId.allSatisfy { $0.isUppercase || $0.isNumber }, entry.keyId)
            let pem = try XCTUnwrap(files["AuthKey_\(entry.keyId).p8"], entry.keyId)
            XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), "PKCS#8, as Apple's .p8 files")
            let loaded = try P256.Signing.PrivateKey(pemRepresentation: pem)
            XCTAssertEqual(loaded.publicKey.rawRepresentation, key.privateKey.publicKey.rawRepresentation)

            // What the JWT verifier will do: an ES256 signature made with the file verifies.
            let message = Data("header.claims".utf8)
            let signature = try loaded.signature(for: message)
            XCTAssertTrue(key.privateKey.publicKey.isValidSignature(signature, for: message))
        }
        XCTAssertEqual(Set(set.providerKeys.map { $0.privateKey.publicKey.rawRepresentation }).count, 5, "distinct keys")
    }

    func testOptionsShapeTheCertificatesAndKeys() throws {
        let options = DevelopmentCertificateOptions(
            bundleID: "org.sample.app", extraTopics: ["org.sample.app.voip", "org.sample.widget"], teamID: "ABCDE12345")
        let set = try DevelopmentCertificateFactory(options: options).generate()
        let identity = try CertificateIdentity(derEncoded: set.universalClient.certificateDER())
        XCTAssertEqual(identity.uid, "org.sample.app")
        XCTAssertEqual(identity.organizationalUnit, "ABCDE12345")
        XCTAssertEqual(identity.topics, ["org.sample.app", "org.sample.app.voip", "org.sample.app.complication", "org.sample.widget"])
        XCTAssertEqual(set.providerKeys.first?.teamID, "ABCDE12345")
        XCTAssertEqual(set.providerKeys.first?.topics, ["org.sample.app", "org.sample.widget"])
    }

    func testRejectsBadOptions() {
        let cases: [(DevelopmentCertificateOptions, DevelopmentCertificateError)] = [
            (.init(bundleID: ""), .invalidTopic("")),
            (.init(bundleID: "com.x, CN=evil"), .invalidTopic("com.x, CN=evil")),
            (.init(extraTopics: [".voip"]), .invalidTopic(".voip")),
            (.init(teamID: "team00000a"), .invalidTeamID("team00000a")),
            (.init(teamID: "SHORT"), .invalidTeamID("SHORT")),
            (.init(teamID: "TEAM00000B"), .teamIDReserved("TEAM00000B")),
        ]
        for (options, expected) in cases {
            XCTAssertThrowsError(try DevelopmentCertificateFactory(options: options).generate()) { error in
                XCTAssertEqual(error as? DevelopmentCertificateError, expected)
            }
        }
    }
}
