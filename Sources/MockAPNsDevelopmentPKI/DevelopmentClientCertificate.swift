import MockAPNsCore
/// The client certificates of the development set, one per case a test needs.
package enum DevelopmentClientCertificate: String, Sendable, Hashable, CaseIterable {
    /// `Apple Development IOS Push Services`: sandbox only, the bundle id as its one topic.
    case sandbox
    /// `Apple Production IOS Push Services`: production only, the bundle id as its one topic.
    case production
    /// `Apple Push Services`: both environments and a topic list (app, VoIP, complication).
    case universal
    /// Universal shape, but its validity period lies entirely in the past.
    case expired
    /// Universal shape, but signed by a throwaway CA that is not the development CA.
    case untrusted

    /// The stem of its files: `client-sandbox.pem`, `client-sandbox-key.pem`,
    /// `client-sandbox.bundle.pem`.
    package var fileStem: String { "client-\(rawValue)" }

    /// The environments its Apple OIDs grant.
    package var environments: Set<APNsEnvironment> {
        switch self {
        case .sandbox: return [.sandbox]
        case .production: return [.production]
        case .universal, .expired, .untrusted: return [.sandbox, .production]
        }
    }

    /// Apple's common name for this kind of certificate.
    package func commonName(bundleID: String) -> String {
        switch self {
        case .sandbox: return "Apple Development IOS Push Services: \(bundleID)"
        case .production: return "Apple Production IOS Push Services: \(bundleID)"
        case .universal, .expired, .untrusted: return "Apple Push Services: \(bundleID)"
        }
    }

    /// Whether it carries the `.3.6` topic list (only the universal shape does).
    package var carriesTopicList: Bool {
        environments.count == 2
    }
}
