import Crypto
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an APNs client certificate says about its holder: which app (topics) it may push to,
/// in which environments, and for how long.
///
/// Built from the leaf certificate's DER bytes exactly as the TLS layer receives them. The
/// value holds no reference to the certificate, so it is cheap to copy into the journal.
package struct CertificateIdentity: Sendable, Hashable, Codable {
    /// The subject as an RFC 4514 string (most specific first), for example
    /// `C=US,O=MockAPNs Development,OU=TEAM00000A,CN=Apple Push Services: com.example.app,UID=com.example.app`.
    package var subject: String
    /// The issuer as an RFC 4514 string.
    package var issuer: String
    /// The subject's common name, such as `Apple Push Services: com.example.app`.
    package var commonName: String?
    /// The subject's `UID`: the base topic (the app's bundle id).
    package var uid: String?
    /// The subject's organizational unit, which in Apple's certificates is the team id.
    package var organizationalUnit: String?
    /// The environments the certificate may push to. Both means a universal certificate.
    package var environments: Set<APNsEnvironment>
    /// The entries of Apple's topic-list extension (`.3.6`, then `.3.4`), or `nil` when the
    /// certificate has neither.
    package var topicList: [CertificateTopic]?
    /// The topics the certificate may push to: the topic list if present, else the `UID`.
    package var topics: [String]
    /// The start of the validity period.
    package var notValidBefore: Date
    /// The end of the validity period.
    package var notValidAfter: Date
    /// The serial number as lowercase hex.
    package var serialNumber: String
    /// The SHA-256 of the certificate's DER encoding, as lowercase hex.
    package var sha256Fingerprint: String

    /// Reads a certificate from its DER encoding.
    ///
    /// Environments come from Apple's OIDs (`.3.1` sandbox, `.3.2` production). A certificate
    /// with neither falls back on the common-name prefix Apple uses for the same kinds, so that
    /// hand-made certificates that only copy Apple's subject still behave; if that says nothing
    /// either, `environments` is empty.
    package init<Bytes: Collection>(derEncoded bytes: Bytes) throws(CertificateIdentityError)
    where Bytes.Element == UInt8 {
        let der = Array(bytes)
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: der)
        } catch {
            throw .notACertificate(String(describing: error))
        }
        try self.init(certificate: certificate, der: der)
    }

    /// Reads a certificate from PEM (the first `CERTIFICATE` block).
    package init(pemEncoded pem: String) throws(CertificateIdentityError) {
        let document: PEMDocument
        do {
            document = try PEMDocument(pemString: pem)
        } catch {
            throw .notACertificate(String(describing: error))
        }
        guard document.discriminator == "CERTIFICATE" else {
            throw .notACertificate("PEM block is \(document.discriminator), not CERTIFICATE")
        }
        try self.init(derEncoded: document.derBytes)
    }

    private init(certificate: Certificate, der: [UInt8]) throws(CertificateIdentityError) {
        subject = certificate.subject.rfc4514String
        issuer = certificate.issuer.rfc4514String
        commonName = certificate.subject.firstString(of: .RDNAttributeType.commonName)
        uid = certificate.subject.firstString(of: ApplePushCertificateOID.userID)
        organizationalUnit = certificate.subject.firstString(of: .RDNAttributeType.organizationalUnitName)
        notValidBefore = certificate.notValidBefore
        notValidAfter = certificate.notValidAfter
        serialNumber = CertificateHex.lowercase(certificate.serialNumber.bytes)
        sha256Fingerprint = CertificateHex.lowercase(SHA256.hash(data: der))

        let extensions = certificate.extensions
        var environments: Set<APNsEnvironment> = []
        if extensions[oid: ApplePushCertificateOID.developmentEnvironment] != nil {
            environments.insert(.sandbox)
        }
        if extensions[oid: ApplePushCertificateOID.productionEnvironment] != nil {
            environments.insert(.production)
        }
        if environments.isEmpty, let commonName {
            environments = Self.environments(forCommonName: commonName)
        }
        self.environments = environments

        var topicList: [CertificateTopic]?
        for oid in [ApplePushCertificateOID.topics, ApplePushCertificateOID.voipTopics] {
            guard let topicExtension = extensions[oid: oid] else { continue }
            do {
                let entries = try CertificateTopicList.decode(topicExtension.value)
                topicList = (topicList ?? []) + entries
            } catch {
                throw .malformedTopicList(oid: String(describing: oid), reason: error.description)
            }
        }
        self.topicList = topicList

        if let topicList {
            var seen: Set<String> = []
            topics = topicList.map(\.topic).filter { seen.insert($0).inserted }
        } else {
            topics = uid.map { [$0] } ?? []
        }
    }

    /// Whether the certificate may push to `environment`.
    package func allows(environment: APNsEnvironment) -> Bool {
        environments.contains(environment)
    }

    /// The topic APNs uses when a request names none: the certificate's only topic. `nil` when
    /// it carries several, in which case a request without `apns-topic` is `MissingTopic`.
    package var defaultTopic: String? {
        topics.count == 1 ? topics.first : nil
    }

    /// Whether the certificate may push to `topic` (an exact, case-sensitive match).
    package func covers(topic: String) -> Bool {
        topics.contains(topic)
    }

    /// Whether the certificate is within its validity period at the given instant (the unit
    /// ``ServerClock`` counts in).
    package func isValid(atMillisecondsSince1970 milliseconds: Int64) -> Bool {
        let instant = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return notValidBefore <= instant && instant <= notValidAfter
    }

    /// Apple's common-name prefixes and the environments each kind of certificate allows.
    private static func environments(forCommonName commonName: String) -> Set<APNsEnvironment> {
        if commonName.hasPrefix("Apple Development ") { return [.sandbox] }
        if commonName.hasPrefix("Apple Production ") { return [.production] }
        if commonName.hasPrefix("Apple Push Services:") { return [.sandbox, .production] }
        return []
    }
}
