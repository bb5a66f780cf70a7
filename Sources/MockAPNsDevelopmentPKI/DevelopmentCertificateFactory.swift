import Crypto
import _CryptoExtras
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MockAPNsCore

/// Makes the development set: a CA, a server certificate for every APNs host name, Apple-shaped
/// client certificates and ES256 provider keys. Everything is made with swift-certificates and
/// swift-crypto, so no `openssl` binary is needed.
///
/// The certificates' keys are ECDSA P-256 by default, or RSA 2048 as Apple issues real push
/// certificates (`keyType: .rsa`, through swift-crypto's `_CryptoExtras`). Provider keys are
/// always P-256: ES256 is the only algorithm APNs takes.
package struct DevelopmentCertificateFactory: Sendable {
    /// The development CA's common name.
    package static let certificateAuthorityName = "MockAPNs Development CA"
    /// The throwaway CA that signs `client-untrusted`; its key is never written.
    package static let untrustedAuthorityName = "MockAPNs Untrusted CA"
    /// The organization on every certificate of the set.
    package static let organization = "MockAPNs Development"

    /// Every name the server certificate answers to: loopback, and Apple's HTTP/2, legacy
    /// gateway and feedback hosts, so clients hard-wired to Apple's names can be pointed here
    /// through `/etc/hosts` or a resolver override.
    package static let serverDNSNames = [
        "localhost",
        "api.push.apple.com",
        "api.sandbox.push.apple.com",
        "api.development.push.apple.com",
        "gateway.push.apple.com",
        "gateway.sandbox.push.apple.com",
        "feedback.push.apple.com",
        "feedback.sandbox.push.apple.com",
    ]
    /// 127.0.0.1 and ::1.
    package static let serverIPAddresses: [[UInt8]] = [
        [127, 0, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    ]

    private static let day: TimeInterval = 86_400

    package var options: DevelopmentCertificateOptions
    /// The instant validity periods are measured from.
    package var now: Date
    /// The certificates' key algorithm.
    package var keyType: DevelopmentKeyType

    package init(options: DevelopmentCertificateOptions = .init(), now: Date = Date(), keyType: DevelopmentKeyType = .ecdsa) {
        self.options = options
        self.now = now
        self.keyType = keyType
    }

    /// Generates the whole set in memory.
    package func generate() throws(DevelopmentCertificateError) -> DevelopmentCertificateSet {
        try options.validate()
        do {
            // The CA starts three years back so that `client-expired` lies inside its lifetime:
            // the leaf's own dates are then the only reason it fails.
            let authority = try makeAuthority(
                name: Self.certificateAuthorityName,
                notValidBefore: now - 3 * 365 * Self.day,
                notValidAfter: now + 20 * 365 * Self.day
            )
            let untrustedAuthority = try makeAuthority(
                name: Self.untrustedAuthorityName,
                notValidBefore: now - Self.day,
                notValidAfter: now + 20 * 365 * Self.day
            )
            // 825 days, counted from notBefore, is the longest validity Apple's TLS clients
            // accept for a server certificate from a private CA.
            let server = try makeServer(
                issuer: authority,
                notValidBefore: now - Self.day,
                notValidAfter: now + 824 * Self.day
            )

            func client(_ kind: DevelopmentClientCertificate) throws -> DevelopmentCredential {
                switch kind {
                case .sandbox, .production, .universal:
                    return try makeClient(
                        kind, issuer: authority, notValidBefore: now - Self.day, notValidAfter: now + 10 * 365 * Self.day)
                case .expired:
                    return try makeClient(
                        kind, issuer: authority, notValidBefore: now - 2 * 365 * Self.day, notValidAfter: now - 365 * Self.day)
                case .untrusted:
                    return try makeClient(
                        kind, issuer: untrustedAuthority, notValidBefore: now - Self.day, notValidAfter: now + 10 * 365 * Self.day)
                }
            }

            return DevelopmentCertificateSet(
                options: options,
                certificateAuthority: authority,
                server: server,
                sandboxClient: try client(.sandbox),
                productionClient: try client(.production),
                universalClient: try client(.universal),
                expiredClient: try client(.expired),
                untrustedClient: try client(.untrusted),
                providerKeys: makeProviderKeys()
            )
        } catch {
            throw .encodingFailed(String(describing: error))
        }
    }

    /// The universal certificate's topic list: the app, its VoIP and complication topics, then
    /// any extra topics (labelled by their suffix, `app` otherwise).
    package func universalTopicList() -> [CertificateTopic] {
        let base = options.bundleID
        var entries = [
            CertificateTopic(topic: base, kinds: ["app"]),
            CertificateTopic(topic: base + ".voip", kinds: ["voip"]),
            CertificateTopic(topic: base + ".complication", kinds: ["complication"]),
        ]
        for topic in options.extraTopics where !entries.contains(where: { $0.topic == topic }) {
            let kind: String
            if topic.hasSuffix(".voip") {
                kind = "voip"
            } else if topic.hasSuffix(".complication") {
                kind = "complication"
            } else {
                kind = "app"
            }
            entries.append(CertificateTopic(topic: topic, kinds: [kind]))
        }
        return entries
    }

    // MARK: - Certificates

    /// A fresh key of the set's type, with what a credential keeps of it.
    private func newKey() throws -> (key: Certificate.PrivateKey, credential: (Certificate) -> DevelopmentCredential) {
        switch keyType {
        case .ecdsa:
            let key = P256.Signing.PrivateKey()
            return (Certificate.PrivateKey(key), { DevelopmentCredential(certificate: $0, privateKey: key) })
        case .rsa:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return (Certificate.PrivateKey(key), { DevelopmentCredential(certificate: $0, privateKey: key) })
        }
    }

    /// The signature algorithm an issuer's key makes.
    private static func signatureAlgorithm(of issuer: Certificate.PrivateKey) -> Certificate.SignatureAlgorithm {
        P256.Signing.PublicKey(issuer.publicKey) != nil ? .ecdsaWithSHA256 : .sha256WithRSAEncryption
    }

    private func makeAuthority(name: String, notValidBefore: Date, notValidAfter: Date) throws -> DevelopmentCredential {
        let (key, credential) = try newKey()
        let publicKey = key.publicKey
        let subject = try DistinguishedName {
            CountryName("US")
            OrganizationName(Self.organization)
            CommonName(name)
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: publicKey)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: subject,
            subject: subject,
            signatureAlgorithm: Self.signatureAlgorithm(of: key),
            extensions: extensions,
            issuerPrivateKey: key
        )
        return credential(certificate)
    }

    private func makeServer(issuer: DevelopmentCredential, notValidBefore: Date, notValidAfter: Date) throws -> DevelopmentCredential {
        let names = Self.serverDNSNames.map { GeneralName.dnsName($0) }
            + Self.serverIPAddresses.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        let subject = try DistinguishedName {
            CountryName("US")
            OrganizationName(Self.organization)
            CommonName("localhost")
        }
        var extensions = try Certificate.Extensions {
            SubjectAlternativeNames(names)
            try ExtendedKeyUsage([.serverAuth])
        }
        return try sign(subject: subject, extensions: &extensions, issuer: issuer, notValidBefore: notValidBefore, notValidAfter: notValidAfter)
    }

    func makeClient(
        _ kind: DevelopmentClientCertificate,
        issuer: DevelopmentCredential,
        notValidBefore: Date,
        notValidAfter: Date
    ) throws -> DevelopmentCredential {
        // Apple's order, as `openssl x509 -subject` prints it: UID, CN, OU, O, C.
        let subject = DistinguishedName([
            RelativeDistinguishedName(.init(type: ApplePushCertificateOID.userID, utf8String: options.bundleID)),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: kind.commonName(bundleID: options.bundleID))),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationalUnitName, utf8String: options.teamID)),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationName, utf8String: Self.organization)),
            RelativeDistinguishedName(try .init(type: .RDNAttributeType.countryName, printableString: "US")),
        ])
        var extensions = try Certificate.Extensions {
            try ExtendedKeyUsage([.clientAuth])
        }
        // Apple's environment markers carry an ASN.1 NULL; only their presence matters.
        var nullSerializer = DER.Serializer()
        try nullSerializer.serialize(ASN1Null())
        let null = nullSerializer.serializedBytes
        if kind.environments.contains(.sandbox) {
            try extensions.append(.init(oid: ApplePushCertificateOID.developmentEnvironment, critical: false, value: null[...]))
        }
        if kind.environments.contains(.production) {
            try extensions.append(.init(oid: ApplePushCertificateOID.productionEnvironment, critical: false, value: null[...]))
        }
        if kind.carriesTopicList {
            let topics = try CertificateTopicList.encode(universalTopicList())
            try extensions.append(.init(oid: ApplePushCertificateOID.topics, critical: false, value: topics[...]))
        }
        return try sign(subject: subject, extensions: &extensions, issuer: issuer, notValidBefore: notValidBefore, notValidAfter: notValidAfter)
    }

    /// Adds what every leaf needs (not a CA, signature-only key usage, key identifiers) and
    /// signs with the issuer's key.
    private func sign(
        subject: DistinguishedName,
        extensions: inout Certificate.Extensions,
        issuer: DevelopmentCredential,
        notValidBefore: Date,
        notValidAfter: Date
    ) throws -> DevelopmentCredential {
        let (key, credential) = try newKey()
        let publicKey = key.publicKey
        try extensions.append(.init(BasicConstraints.notCertificateAuthority, critical: true))
        try extensions.append(.init(KeyUsage(digitalSignature: true), critical: true))
        try extensions.append(.init(SubjectKeyIdentifier(hash: publicKey), critical: false))
        if let issuerKeyID = try issuer.certificate.extensions.subjectKeyIdentifier?.keyIdentifier {
            try extensions.append(.init(AuthorityKeyIdentifier(keyIdentifier: issuerKeyID), critical: false))
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: issuer.certificate.subject,
            subject: subject,
            signatureAlgorithm: Self.signatureAlgorithm(of: issuer.privateKey),
            extensions: extensions,
            issuerPrivateKey: issuer.privateKey
        )
        return credential(certificate)
    }

    // MARK: - Provider keys

    /// The fixed key ids of the development set. Readable on purpose: a failing test that
    /// names `SANDBOX001` says what it was about.
    package enum KeyID {
        /// Team A, team-scoped, valid in both environments (a pre-2025 key).
        package static let teamBothEnvironments = "BOTHENV001"
        /// Team A, team-scoped, sandbox only.
        package static let teamSandbox = "SANDBOX001"
        /// Team A, team-scoped, production only.
        package static let teamProduction = "PRODUCT001"
        /// Team A, topic-specific, sandbox only, for the bundle id.
        package static let topicSandbox = "TOPICSBX01"
        /// Team B, team-scoped, both environments: must not reach team A's topics.
        package static let otherTeam = "TEAMBKEY01"
    }

    private func makeProviderKeys() -> [DevelopmentProviderKey] {
        let team = options.teamID
        let bundleIDs = [options.bundleID]
            + options.extraTopics.filter { !$0.hasPrefix(options.bundleID + ".") && $0 != options.bundleID }
        func key(
            _ id: String, team: String, _ environment: DevelopmentProviderKey.Environment,
            _ scope: DevelopmentProviderKey.Scope, topics: [String], purpose: String
        ) -> DevelopmentProviderKey {
            DevelopmentProviderKey(
                keyID: id, teamID: team, environment: environment, scope: scope, topics: topics,
                purpose: purpose, privateKey: P256.Signing.PrivateKey())
        }
        return [
            key(KeyID.teamBothEnvironments, team: team, .both, .team, topics: bundleIDs,
                purpose: "team key valid in both environments (keys made before 2025 behave so)"),
            key(KeyID.teamSandbox, team: team, .sandbox, .team, topics: bundleIDs,
                purpose: "team key, sandbox only: production requests fail"),
            key(KeyID.teamProduction, team: team, .production, .team, topics: bundleIDs,
                purpose: "team key, production only: sandbox requests fail"),
            key(KeyID.topicSandbox, team: team, .sandbox, .topic, topics: [options.bundleID],
                purpose: "topic-specific key for \(options.bundleID), sandbox only"),
            key(KeyID.otherTeam, team: DevelopmentCertificateOptions.otherTeamID, .both, .team,
                topics: [DevelopmentCertificateOptions.otherTeamBundleID],
                purpose: "the second team's key: team A's topics must be refused"),
        ]
    }
}
