/// The ports the listeners actually bound (useful when the configuration asked for `0`).
public struct BoundPorts: Sendable, Equatable, Codable {
    /// The HTTP/2 provider API.
    public var http2: Int

    public init(http2: Int) {
        self.http2 = http2
    }

    /// One line for logs and humans: `http2=127.0.0.1:2197`.
    public func summary(host: String) -> String {
        "http2=\(host):\(http2)"
    }

    /// The JSON written by `--ports-file`: `{"http2":2197}`.
    public var json: String {
        "{\"http2\":\(http2)}"
    }
}
