import MockAPNsLogging
/// Where the access log goes and how it looks.
package struct AccessLogSettings: Sendable {
    /// Text for people, or one JSON object per line.
    package var format: LogFormat
    /// Standard error by default, beside the server's other log lines.
    package var output: LogOutput

    package init(format: LogFormat = .text, output: LogOutput = .standardError) {
        self.format = format
        self.output = output
    }
}
