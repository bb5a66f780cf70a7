import MockAPNsCore

extension MockAPNsConfiguration {
    /// The device registry's server-wide settings.
    public struct RegistrySettings: Sendable, Equatable {
        /// At most this many pushes per token in each window, for every token without a
        /// window of its own (set through the control API, a scenario rule or
        /// `DeviceRegistry.limitPushes`); `nil` (the default) limits nothing. Counted on the
        /// server clock; a push over it gets `429 TooManyRequests`.
        public var rateLimit: RateWindow?

        /// Settings with a server-wide rate window for every token (`nil`: none).
        public init(rateLimit: RateWindow? = nil) {
            self.rateLimit = rateLimit
        }

        /// Reads the `registry` section:
        ///
        /// ```json
        /// "registry": { "rateLimit": { "pushes": 10, "perSeconds": 60 } }
        /// ```
        mutating func read(_ reader: inout JSONObjectReader) throws(JSONFileError) {
            if var limit = try reader.object("rateLimit") {
                rateLimit = try Self.rateWindow(&limit)
            }
            try reader.finish(allowed: ["rateLimit"])
        }

        /// `{"pushes": N, "perSeconds": S}`, both required: the shape the configuration file,
        /// the control API and scenario rules share.
        static func rateWindow(_ reader: inout JSONObjectReader) throws(JSONFileError) -> RateWindow {
            guard let pushes = try reader.integer("pushes", in: 0...1_000_000_000) else {
                throw reader.missing("pushes", expected: "how many pushes a window allows, from 0 to 1000000000")
            }
            guard let seconds = try reader.double("perSeconds", in: 0.001...31_536_000) else {
                throw reader.missing("perSeconds", expected: "the window's length in seconds, from 0.001 to 31536000 (a year)")
            }
            try reader.finish(allowed: ["pushes", "perSeconds"])
            return RateWindow(pushes: Int(pushes), perMilliseconds: max(1, Int64((seconds * 1000).rounded())))
        }
    }
}
