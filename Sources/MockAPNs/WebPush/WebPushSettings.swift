import MockAPNsCore
import MockAPNsJSON
import MockAPNsWebPush

extension MockAPNsConfiguration {
    /// Safari's web push endpoint (RFC 8030 push requests, VAPID, `aes128gcm`): its
    /// listener, the origin its subscriptions' endpoints name, and the rules Apple leaves
    /// unverified (`WebPushOptions`, each default with its source).
    package struct WebPushSettings: Sendable, Equatable {
        /// The web push listener's port. `0` (the default) picks a free port; `nil` runs no
        /// web push listener. `mockapns serve` uses 2200.
        package var port: Int? = 0
        /// The origin subscriptions' endpoints start with, and the `aud` a VAPID token must
        /// name (besides `https://` + the host the request was sent to). `nil`: the listener's
        /// own, `https://<host>:<port>`. Set it when clients reach the listener through
        /// another name (a proxy, a container's published port).
        package var endpointOrigin: String? = nil
        /// Apple's rules where its behaviour is unverified.
        package var options = WebPushOptions()

        /// `mockapns serve`'s web push port.
        package static let defaultPort = 2200

        package init() {}

        /// Every key of the `webPush` object in a configuration file.
        static let fileKeys = [
            "port", "endpointOrigin", "maximumPayloadBytes", "maximumExpirationSeconds", "goneSubscriptionAnswer",
            "requireTTL", "rejectUndecryptable",
        ]

        /// Reads the `webPush` object of a configuration file over these values.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let node = object.node("port") {
                if case .null = node.value {
                    port = nil
                } else if case .number(let text) = node.value, let value = Int(text), (0...65535).contains(value) {
                    port = value
                } else {
                    throw object.invalid("port", node, "expected a port (0 to 65535) or null (no web push listener)")
                }
            }
            if let node = object.node("endpointOrigin") {
                guard case .string(let origin) = node.value, Self.isOrigin(origin) else {
                    throw object.invalid("endpointOrigin", node,
                                         "expected an https origin such as \"https://push.example.test:8443\" (no path, no trailing slash)")
                }
                endpointOrigin = origin
            }
            if let bytes = try object.integer("maximumPayloadBytes", in: 1...1_048_576) { options.maximumPayloadBytes = Int(bytes) }
            if let seconds = try object.integer("maximumExpirationSeconds", in: 1...31_536_000) { options.maximumExpirationSeconds = seconds }
            if let answer = try object.oneOf("goneSubscriptionAnswer", WebPushGoneAnswer.self) { options.goneAnswer = answer }
            if let requires = try object.bool("requireTTL") { options.requiresTTL = requires }
            if let rejects = try object.bool("rejectUndecryptable") { options.rejectsUndecryptable = rejects }
            try object.finish(allowed: Self.fileKeys)
        }

        /// Whether `text` is an https origin: `https://host[:port]`, nothing after.
        static func isOrigin(_ text: String) -> Bool {
            guard text.hasPrefix("https://") else { return false }
            let rest = text.dropFirst("https://".count)
            return !rest.isEmpty && !rest.contains("/") && !rest.contains("?") && !rest.contains("#") && !rest.contains(" ")
        }
    }
}

extension MockAPNsConfiguration {
    /// Safari's web push endpoint's port: `0` (the default) picks a free port, `nil` runs no
    /// web push listener (`webPush.port` in a configuration file).
    public var webPushPort: Int? {
        get { webPush.port }
        set { webPush.port = newValue }
    }
}
