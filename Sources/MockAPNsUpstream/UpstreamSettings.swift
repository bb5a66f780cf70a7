import MockAPNsJSON

/// Upstream mode's settings (`mockapns serve --upstream`, the configuration file's
/// `upstream` object): which APNs to relay to, how to trust it, the client certificate to
/// present for certificate providers, and the pool's limits.
package struct UpstreamSettings: Sendable, Equatable {
    /// `sandbox`, `production`, or an `https://host[:port]` URL; `nil` runs no upstream mode.
    package var target: String? = nil
    /// Where channel management requests go: a URL; `nil` takes Apple's management host for
    /// `sandbox` and `production`, and answers them here for any other upstream.
    package var channelManagementTarget: String? = nil
    /// A PEM file of CA certificates the upstream's certificate must chain to; `nil` trusts
    /// the system's store.
    package var trustRoots: String? = nil
    /// The client certificate (PEM, leaf first) presented upstream for providers that
    /// connected with a certificate (a TLS client certificate cannot be forwarded).
    package var certificateChain: String? = nil
    /// The private key of `certificateChain` (PEM). Never journaled nor logged.
    package var privateKey: String? = nil
    /// The most upstream connections open at once, per upstream API and kind of provider
    /// credential. Each provider connection gets an upstream connection of its own (APNs ties
    /// a connection to one team and limits token changes on it), so this bounds the provider
    /// connections relayed at once; one more gets 503.
    package var connections = 64
    /// Seconds to connect and finish TLS before the request fails with 503.
    package var connectTimeoutSeconds = 5.0
    /// Seconds from sending a request upstream to its complete answer before it fails with 503.
    package var requestTimeoutSeconds = 10.0
    /// Where the upstream's answers that MockAPNs' own rules would not give are written as a
    /// scenario that replays them (`--record-scenario`; `UpstreamScenarioRecorder`); `nil`
    /// records nothing.
    package var recordScenario: String? = nil

    package init() {}

    /// Whether upstream mode is on.
    package var isEnabled: Bool { target != nil }

    /// The ranges the numbers take, for the file and the command line alike.
    package static let connectionRange: ClosedRange<Int> = 1...4096
    package static let timeoutRange: ClosedRange<Double> = 0.01...600

    /// Every key of the `upstream` object in a configuration file.
    static let fileKeys = [
        "url", "channelManagementUrl", "trustRoots", "certificateChain", "privateKey", "connections",
        "connectTimeoutSeconds", "requestTimeoutSeconds", "recordScenario",
    ]

    /// Reads the `upstream` object of a configuration file over these values.
    package mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
        if let node = object.node("url") {
            guard case .string(let text) = node.value, (try? UpstreamEndpoint.parse(text)) != nil else {
                throw object.invalid("url", node, "expected \"sandbox\", \"production\" or an https://host[:port] URL")
            }
            target = text
        }
        if let node = object.node("channelManagementUrl") {
            guard case .string(let text) = node.value, text.hasPrefix("https://"), (try? UpstreamEndpoint.parse(text)) != nil else {
                throw object.invalid("channelManagementUrl", node, "expected an https://host[:port] URL")
            }
            channelManagementTarget = text
        }
        if let path = try object.string("trustRoots") { trustRoots = path }
        if let path = try object.string("certificateChain") { certificateChain = path }
        if let path = try object.string("privateKey") { privateKey = path }
        if let path = try object.string("recordScenario") { recordScenario = path }
        let range = Int64(Self.connectionRange.lowerBound)...Int64(Self.connectionRange.upperBound)
        if let count = try object.integer("connections", in: range) { connections = Int(count) }
        if let seconds = try object.double("connectTimeoutSeconds", in: Self.timeoutRange) { connectTimeoutSeconds = seconds }
        if let seconds = try object.double("requestTimeoutSeconds", in: Self.timeoutRange) { requestTimeoutSeconds = seconds }
        try object.finish(allowed: Self.fileKeys)
        if (certificateChain == nil) != (privateKey == nil) {
            throw JSONFileError(path: object.path, position: object.position,
                                message: "certificateChain and privateKey go together: give both or neither")
        }
    }

    /// What is wrong with these settings as a whole, or `nil`: the checks the command line
    /// and the Swift configuration share with the file.
    package func problem() -> String? {
        guard let target else {
            return recordScenario == nil ? nil : "--record-scenario records what an upstream answers: it needs --upstream"
        }
        do {
            _ = try UpstreamEndpoint.parse(target)
        } catch {
            return "upstream: \(error)"
        }
        if let channelManagementTarget {
            do {
                _ = try UpstreamEndpoint.parse(channelManagementTarget)
            } catch {
                return "upstream channel management: \(error)"
            }
        }
        if (certificateChain == nil) != (privateKey == nil) {
            return "upstream: the client certificate and its private key go together (--upstream-certificate and --upstream-key)"
        }
        if !Self.connectionRange.contains(connections) {
            return "upstream: connections must be \(Self.connectionRange.lowerBound)-\(Self.connectionRange.upperBound), not \(connections)"
        }
        for (name, value) in [("connect timeout", connectTimeoutSeconds), ("request timeout", requestTimeoutSeconds)]
        where !Self.timeoutRange.contains(value) {
            return "upstream: the \(name) must be from \(Self.timeoutRange.lowerBound) to \(Int(Self.timeoutRange.upperBound)) seconds, not \(value)"
        }
        return nil
    }

    /// The channel management upstream: the one named, else Apple's for `sandbox` and
    /// `production`, else none (MockAPNs answers channel management itself).
    package func channelManagementEndpoint() -> UpstreamEndpoint? {
        if let channelManagementTarget { return try? UpstreamEndpoint.parse(channelManagementTarget) }
        return target.flatMap(UpstreamEndpoint.channelManagement(for:))
    }
}
