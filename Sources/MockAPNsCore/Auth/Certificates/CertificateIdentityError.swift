/// Why a client certificate could not be read into a ``CertificateIdentity``.
package enum CertificateIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a DER (or PEM) X.509 certificate.
    case notACertificate(String)
    /// The certificate carries one of Apple's topic-list extensions in an unreadable shape.
    case malformedTopicList(oid: String, reason: String)

    package var description: String {
        switch self {
        case .notACertificate(let reason):
            return "not an X.509 certificate: \(reason)"
        case .malformedTopicList(let oid, let reason):
            return "malformed APNs topic list in extension \(oid): \(reason)"
        }
    }
}
