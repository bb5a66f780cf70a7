import MockAPNsCore

extension MockAPNsConfiguration {
    /// The device registry's server-wide settings.
    package struct RegistrySettings: Sendable, Equatable {
        /// At most this many pushes per token in each window, for every token without a
        /// window of its own (set through the control API, a scenario rule or
        /// `DeviceRegistry.limitPushes`); `nil` (the default) limits nothing. Counted on the
        /// server clock; a push over it gets `429 TooManyRequests`.
        package var rateLimit: RateWindow?

        /// Settings with a server-wide rate window for every token (`nil`: none).
        package init(rateLimit: RateWindow? = nil) {
            self.rateLimit = rateLimit
        }

        /// Reads the `registry` section:
        ///
        /// ```json
        /// "registry": { "rateLimit": { "pushes": 10, "perSeconds": 60 } }
        /// ```
        mutating func read(_ reader: inout JSONObjectReader) throws(JSONFileError) {
            if var limit = try reader.object("rateLimit") {
                rateLimit = try RateWindow.read(&limit)
            }
            try reader.finish(allowed: ["rateLimit"])
        }
    }
}
