extension MockAPNsConfiguration {
    /// Where the access log goes and how it looks.
    public struct AccessLogSettings: Sendable {
        /// Text for people, or one JSON object per line.
        public var format: LogFormat
        /// Standard error by default, beside the server's other log lines.
        public var output: LogOutput

        public init(format: LogFormat = .text, output: LogOutput = .standardError) {
            self.format = format
            self.output = output
        }
    }
}
