import MockAPNsCore
import MockAPNsJournal

/// A notification tried and not yet accepted: its attempts so far.
struct Chain: Sendable {
    static let sequenceLimit = 50

    var deviceToken: String
    var topic: String?
    var apnsID: String?
    var provider: ProviderIdentity?
    var connections: [UInt64]
    /// The journal sequences of its attempts (the first `sequenceLimit - 1`, and the latest).
    var sequences: [UInt64]
    var attempts: Int
    /// The latest attempt's outcome and when its answer went out.
    var outcome: AttemptOutcome
    var answeredAt: Int64
    var shape: RequestShape
    /// Delays before each retry that followed a retryable failure, in milliseconds.
    var delays: [Int64] = []
    /// Delays seen before the provider was known.
    var unattributedDelays: [Int64] = []
    var dropsInARow = 0
    var reportedFlatBackoff = false

    init(
        deviceToken: String, topic: String?, apnsID: String?, provider: ProviderIdentity?, connections: [UInt64],
        sequences: [UInt64], attempts: Int, outcome: AttemptOutcome, answeredAt: Int64, shape: RequestShape
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.apnsID = apnsID
        self.provider = provider
        self.connections = connections
        self.sequences = sequences
        self.attempts = attempts
        self.outcome = outcome
        self.answeredAt = answeredAt
        self.shape = shape
        self.dropsInARow = outcome == .interrupted(.dropped) ? 1 : 0
    }
}
