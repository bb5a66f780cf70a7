import MockAPNsCore

/// The ports the listeners actually bound (useful when the configuration asked for `0`).
///
/// `http2`, `gateway`, `feedback` and `channelManagement` are the primary environment's (the
/// only one, or the sandbox on a server playing both); `ports(of:)` gives another
/// environment's, so a server playing both reports its production listeners there.
public struct BoundPorts: Sendable, Equatable, Codable {
    /// The HTTP/2 provider API.
    public var http2: Int
    /// The legacy binary gateway; `nil` when it is not listening.
    public var gateway: Int?
    /// The legacy feedback service; `nil` when it is not listening.
    public var feedback: Int?
    /// The control API (plain HTTP); `nil` when it is not listening.
    public var control: Int?
    /// The broadcast channel management API; `nil` when it is not listening.
    public var channelManagement: Int?
    /// Safari's web push endpoint (HTTP/2 and HTTP/1.1); `nil` when it is not listening.
    public var webPush: Int?
    /// Each environment's listeners, sandbox first.
    package var environments: [EnvironmentPorts]

    package init(
        http2: Int, gateway: Int? = nil, feedback: Int? = nil, control: Int? = nil, channelManagement: Int? = nil,
        webPush: Int? = nil, environments: [EnvironmentPorts] = []
    ) {
        self.webPush = webPush
        self.http2 = http2
        self.gateway = gateway
        self.feedback = feedback
        self.control = control
        self.channelManagement = channelManagement
        self.environments = environments
    }

    /// The ports a client of one environment uses, if the server plays it: that environment's
    /// HTTP/2, gateway, feedback and channel management listeners, and the listeners every
    /// environment shares (control, web push).
    public func ports(of environment: APNsEnvironment) -> BoundPorts? {
        guard let own = environments.first(where: { $0.environment == environment }) else { return nil }
        return BoundPorts(
            http2: own.http2, gateway: own.gateway, feedback: own.feedback, control: control,
            channelManagement: own.channelManagement, webPush: webPush, environments: [own]
        )
    }

    /// One line for logs and humans: `http2=127.0.0.1:2197 gateway=127.0.0.1:2195 feedback=127.0.0.1:2196`;
    /// on a server playing both, each environment's listeners after its name. The control API
    /// binds its own host, `controlHost` (default: `host`).
    package func summary(host: String, controlHost: String? = nil) -> String {
        var parts: [String]
        if environments.count > 1 {
            parts = environments.map { "\($0.environment.rawValue): \($0.summary(host: host))" }
        } else {
            parts = [EnvironmentPorts(
                environment: .sandbox, http2: http2, gateway: gateway, feedback: feedback, channelManagement: channelManagement
            ).summary(host: host)]
        }
        if let webPush { parts.append("webPush=\(host):\(webPush)") }
        if let control { parts.append("control=\(controlHost ?? host):\(control)") }
        return parts.joined(separator: " ")
    }

    /// The JSON written by `--ports-file`:
    /// `{"http2":2197,"gateway":2195,"feedback":2196,"control":2198,"environments":{"sandbox":{"http2":2197,...}}}`.
    package var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.integer("http2", http2)
        writer.integer("gateway", gateway)
        writer.integer("feedback", feedback)
        writer.integer("control", control)
        writer.integer("channelManagement", channelManagement)
        writer.integer("webPush", webPush)
        if !environments.isEmpty {
            writer.beginObject("environments")
            for ports in environments {
                writer.beginObject(ports.environment.rawValue)
                ports.write(into: &writer)
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endObject()
        return writer.text
    }
}

/// The listeners of one environment.
package struct EnvironmentPorts: Sendable, Equatable, Codable {
    /// The environment these listeners play.
    package var environment: APNsEnvironment
    /// The HTTP/2 provider API.
    package var http2: Int
    /// The legacy binary gateway, when it listens.
    package var gateway: Int?
    /// The feedback service, when it listens.
    package var feedback: Int?
    /// The broadcast channel management API, when it listens.
    package var channelManagement: Int?

    package init(environment: APNsEnvironment, http2: Int, gateway: Int? = nil, feedback: Int? = nil, channelManagement: Int? = nil) {
        self.environment = environment
        self.http2 = http2
        self.gateway = gateway
        self.feedback = feedback
        self.channelManagement = channelManagement
    }

    func summary(host: String) -> String {
        var line = "http2=\(host):\(http2)"
        if let gateway { line += " gateway=\(host):\(gateway)" }
        if let feedback { line += " feedback=\(host):\(feedback)" }
        if let channelManagement { line += " channelManagement=\(host):\(channelManagement)" }
        return line
    }

    func write(into writer: inout JSONWriter) {
        writer.integer("http2", http2)
        writer.integer("gateway", gateway)
        writer.integer("feedback", feedback)
        writer.integer("channelManagement", channelManagement)
    }
}
