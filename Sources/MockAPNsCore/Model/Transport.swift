/// Which protocol mouth a request or connection came through.
public enum Transport: String, CaseIterable, Sendable, Hashable, Codable {
    /// The HTTP/2 provider API (port 2197 / 443).
    case http2
    /// The legacy binary gateway (port 2195).
    case legacy
    /// The legacy feedback service (port 2196).
    case feedback
    /// The broadcast channel management API (Apple: 2195 sandbox, 2196 production; here 2199).
    case channelManagement
    /// Safari's web push endpoint (RFC 8030 push requests with VAPID; its own port).
    case webPush
}
