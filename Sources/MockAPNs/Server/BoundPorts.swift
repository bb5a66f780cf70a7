/// The ports the listeners actually bound (useful when the configuration asked for `0`).
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

    public init(http2: Int, gateway: Int? = nil, feedback: Int? = nil, control: Int? = nil, channelManagement: Int? = nil) {
        self.http2 = http2
        self.gateway = gateway
        self.feedback = feedback
        self.control = control
        self.channelManagement = channelManagement
    }

    /// One line for logs and humans: `http2=127.0.0.1:2197 gateway=127.0.0.1:2195 feedback=127.0.0.1:2196`.
    /// The control API binds its own host, `controlHost` (default: `host`).
    public func summary(host: String, controlHost: String? = nil) -> String {
        var line = "http2=\(host):\(http2)"
        if let gateway { line += " gateway=\(host):\(gateway)" }
        if let feedback { line += " feedback=\(host):\(feedback)" }
        if let channelManagement { line += " channelManagement=\(host):\(channelManagement)" }
        if let control { line += " control=\(controlHost ?? host):\(control)" }
        return line
    }

    /// The JSON written by `--ports-file`: `{"http2":2197,"gateway":2195,"feedback":2196,"control":2198}`.
    public var json: String {
        var members = ["\"http2\":\(http2)"]
        if let gateway { members.append("\"gateway\":\(gateway)") }
        if let feedback { members.append("\"feedback\":\(feedback)") }
        if let control { members.append("\"control\":\(control)") }
        if let channelManagement { members.append("\"channelManagement\":\(channelManagement)") }
        return "{" + members.joined(separator: ",") + "}"
    }
}
