import MockAPNsCore
/// The thresholds the provider verdicts use. Each default says where it comes from: Apple's
/// documentation where Apple gives a number, otherwise MockAPNs' choice and why. The
/// configuration file's `verdicts` section and `mockapns report --config` set them.
package struct VerdictSettings: Sendable, Equatable {
    /// A retry of a failed notification sooner than this after the failure is `retriedTooSoon`.
    /// Default 100 ms, MockAPNs' choice: far below any deliberate backoff, far above a loop
    /// that resends at once. Apple names no figure for 429 and suggests about 15 minutes
    /// after a 5xx; a run that wants Apple's figure sets 900000.
    package var minimumRetryDelayMilliseconds: Int64

    /// Whether the first retry after a dropped connection, a GOAWAY, or a stream refused
    /// with REFUSED_STREAM may follow at once (on a new connection). Default `true`: RFC 9113
    /// section 8.7 says such requests were not processed and can be retried, and a dropped
    /// connection says nothing about load. Later retries of the same notification must still
    /// back off.
    package var immediateRetryAfterDrop: Bool

    /// How many consecutive retry delays of one notification are looked at together for
    /// growth. Default 3, MockAPNs' choice: the shortest run in which a backoff that never
    /// grows is told apart from jitter.
    package var backoffRunLength: Int

    /// Within such a run, at least one delay must be this many times the one before it (and at
    /// least `minimumRetryDelayMilliseconds`), or the run is `backoffDoesNotGrow`. Default 1.5, MockAPNs' choice: exponential backoff doubles
    /// (AWS "Exponential Backoff And Jitter", gRPC connection backoff use a factor of 1.6–2),
    /// and jitter may shrink single steps.
    package var backoffGrowthFactor: Double

    /// More new connections than this from one provider within `reconnectStormWindowMilliseconds`
    /// after one of its connections was dropped is a `reconnectStorm`. Default 5, MockAPNs'
    /// choice: a provider replaces the connection it lost, or a few pooled ones; Apple treats
    /// rapid connecting and disconnecting as a denial-of-service attack but names no number.
    package var reconnectStormConnections: Int

    /// The window after a drop for `reconnectStormConnections`. Default 1000 ms (the
    /// "within a second" of a reconnect storm).
    package var reconnectStormWindowMilliseconds: Int64

    /// This many connections of one provider that each carried a single notification within
    /// `churnWindowSeconds` is `connectionChurn`. Defaults 10 in 10 s, as the server's own
    /// churn diagnoses (MockAPNs' choice): Apple asks providers to keep connections open and
    /// reuse them.
    package var churnConnections: Int
    package var churnWindowSeconds: Int

    /// A provider token first used sooner than this after the provider's previous new token
    /// is `earlyTokenRenewal`. Default 1200 s: Apple, "Establishing a token-based connection
    /// to APNs": refresh the token no more than once every 20 minutes.
    package var minimumTokenRenewalSeconds: Int64

    /// How many findings of each rule a report lists as evidence per provider (the counts
    /// cover them all). Default 20.
    package var examplesPerRule: Int

    package init(
        minimumRetryDelayMilliseconds: Int64 = 100,
        immediateRetryAfterDrop: Bool = true,
        backoffRunLength: Int = 3,
        backoffGrowthFactor: Double = 1.5,
        reconnectStormConnections: Int = 5,
        reconnectStormWindowMilliseconds: Int64 = 1000,
        churnConnections: Int = 10,
        churnWindowSeconds: Int = 10,
        minimumTokenRenewalSeconds: Int64 = 1200,
        examplesPerRule: Int = 20
    ) {
        self.minimumRetryDelayMilliseconds = minimumRetryDelayMilliseconds
        self.immediateRetryAfterDrop = immediateRetryAfterDrop
        self.backoffRunLength = backoffRunLength
        self.backoffGrowthFactor = backoffGrowthFactor
        self.reconnectStormConnections = reconnectStormConnections
        self.reconnectStormWindowMilliseconds = reconnectStormWindowMilliseconds
        self.churnConnections = churnConnections
        self.churnWindowSeconds = churnWindowSeconds
        self.minimumTokenRenewalSeconds = minimumTokenRenewalSeconds
        self.examplesPerRule = examplesPerRule
    }
}

extension VerdictSettings {
    /// Every setting's JSON key, as the configuration file's `verdicts` section spells it.
    package static let keys = [
        "minimumRetryDelayMilliseconds", "immediateRetryAfterDrop", "backoffRunLength", "backoffGrowthFactor",
        "reconnectStormConnections", "reconnectStormWindowMilliseconds", "churnConnections", "churnWindowSeconds",
        "minimumTokenRenewalSeconds", "examplesPerRule",
    ]

    /// Reads a `verdicts` object over these values; unknown keys are errors naming their path.
    package mutating func read(_ reader: inout JSONObjectReader, alsoAllowed: [String] = []) throws(JSONFileError) {
        let day: Int64 = 86_400_000
        if let value = try reader.integer("minimumRetryDelayMilliseconds", in: 0...day) { minimumRetryDelayMilliseconds = value }
        if let value = try reader.bool("immediateRetryAfterDrop") { immediateRetryAfterDrop = value }
        if let value = try reader.integer("backoffRunLength", in: 2...1000) { backoffRunLength = Int(value) }
        if let value = try reader.double("backoffGrowthFactor", in: 1...1000) { backoffGrowthFactor = value }
        if let value = try reader.integer("reconnectStormConnections", in: 1...100_000) { reconnectStormConnections = Int(value) }
        if let value = try reader.integer("reconnectStormWindowMilliseconds", in: 1...day) { reconnectStormWindowMilliseconds = value }
        if let value = try reader.integer("churnConnections", in: 1...100_000) { churnConnections = Int(value) }
        if let value = try reader.integer("churnWindowSeconds", in: 1...86_400) { churnWindowSeconds = Int(value) }
        if let value = try reader.integer("minimumTokenRenewalSeconds", in: 0...(365 * 86_400)) { minimumTokenRenewalSeconds = value }
        if let value = try reader.integer("examplesPerRule", in: 0...10_000) { examplesPerRule = Int(value) }
        try reader.finish(allowed: Self.keys + alsoAllowed)
    }

    /// The settings as a JSON object (the keys `read` takes).
    package func write(key: String?, into writer: inout JSONWriter) {
        writer.beginObject(key)
        writer.integer("minimumRetryDelayMilliseconds", minimumRetryDelayMilliseconds)
        writer.bool("immediateRetryAfterDrop", immediateRetryAfterDrop)
        writer.integer("backoffRunLength", backoffRunLength)
        writer.raw("backoffGrowthFactor", json: Self.decimal(backoffGrowthFactor))
        writer.integer("reconnectStormConnections", reconnectStormConnections)
        writer.integer("reconnectStormWindowMilliseconds", reconnectStormWindowMilliseconds)
        writer.integer("churnConnections", churnConnections)
        writer.integer("churnWindowSeconds", churnWindowSeconds)
        writer.integer("minimumTokenRenewalSeconds", minimumTokenRenewalSeconds)
        writer.integer("examplesPerRule", examplesPerRule)
        writer.endObject()
    }

    /// `1.5`, `2`: a finite double as JSON number text.
    static func decimal(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
