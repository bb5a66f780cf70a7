/// One entry of a certificate's topic list: a topic and the kinds Apple labels it with.
///
/// Apple's listing for a universal certificate reads `com.x` / `app`, `com.x.voip` / `voip`,
/// `com.x.complication` / `complication`.
package struct CertificateTopic: Sendable, Hashable, Codable {
    /// The topic as a provider puts it in `apns-topic`.
    package var topic: String
    /// Apple's labels for the topic, such as `app`, `voip` or `complication`.
    package var kinds: [String]

    package init(topic: String, kinds: [String]) {
        self.topic = topic
        self.kinds = kinds
    }
}
