import SwiftASN1

/// The object identifiers Apple puts in APNs client certificates.
///
/// Apple documents none of these formally; the values below are the ones every client library
/// and Apple's own certificate listings agree on.
package enum ApplePushCertificateOID {
    /// The certificate may be used against the development (sandbox) environment.
    package static let developmentEnvironment: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 1]
    /// The certificate may be used against the production environment.
    package static let productionEnvironment: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 2]
    /// A topic list in the same shape as `topics`; Apple names it for VoIP certificates.
    package static let voipTopics: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 4]
    /// The topic list of a universal certificate: the app, its VoIP and complication topics.
    package static let topics: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 6]
    /// The subject's `UID` attribute (RFC 4519 userid), which carries the bundle id.
    package static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
}
