import MockAPNsCore
import MockAPNsTLS

/// The client certificate of a legacy connection (gateway or feedback), read once when the
/// handshake completes. Both legacy listeners require a trusted certificate, so OpenSSL has
/// already refused missing, untrusted and expired ones; what is left to check is what the
/// certificate says.
struct LegacyClientCertificate: Sendable {
    /// What the certificate says about its holder.
    let identity: CertificateIdentity
    /// The topic every notification goes to: the subject's `UID` (the app's bundle id), or
    /// the only topic listed. Legacy frames cannot name a topic.
    let defaultTopic: String

    /// Why a certificate that passed the handshake cannot be used here.
    enum Refusal: Error, Sendable, CustomStringConvertible {
        case notPresented
        case unreadable(CertificateIdentityError)
        case noTopic(subject: String)
        case wrongEnvironment(subject: String, allowed: Set<APNsEnvironment>, server: APNsEnvironment)

        var description: String {
            switch self {
            case .notPresented:
                return "the client presented no certificate"
            case .unreadable(let error):
                return "the client certificate cannot be read: \(error)"
            case .noTopic(let subject):
                return "the client certificate \(subject) names no app: it has neither a UID nor a topic list"
            case .wrongEnvironment(let subject, let allowed, let server):
                let names = allowed.map(\.rawValue).sorted().joined(separator: " and ")
                return "the client certificate \(subject) is for \(names.isEmpty ? "no environment" : names), "
                    + "but this server plays \(server.rawValue). Apple's binary gateway refused such certificates "
                    + "(providers saw the alert certificate_unknown); the mock closes the connection unread"
            }
        }
    }

    /// Reads the leaf certificate of `session` and checks it may be used in `environment`.
    static func read(_ session: TLSSessionInfo, environment: APNsEnvironment) -> Result<LegacyClientCertificate, Refusal> {
        guard let leaf = session.peerCertificateChainDER.first else { return .failure(.notPresented) }
        let identity: CertificateIdentity
        do {
            identity = try CertificateIdentity(derEncoded: leaf)
        } catch {
            return .failure(.unreadable(error))
        }
        guard let topic = identity.uid ?? identity.defaultTopic else {
            return .failure(.noTopic(subject: identity.subject))
        }
        guard identity.allows(environment: environment) else {
            return .failure(.wrongEnvironment(subject: identity.subject, allowed: identity.environments, server: environment))
        }
        return .success(LegacyClientCertificate(identity: identity, defaultTopic: topic))
    }

    /// The credentials as the decision core takes them.
    var authentication: AuthenticationResult {
        .certificate(topics: Set(identity.topics), defaultTopic: defaultTopic, environments: identity.environments)
    }

    /// The topics whose feedback this certificate collects: every topic it lists, and its app.
    var feedbackTopics: Set<String> {
        Set(identity.topics).union([defaultTopic])
    }
}
