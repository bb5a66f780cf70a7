/// What `MockAPNsServer.reset()` cleared, so a test (or `POST /v1/reset`) can see it.
public struct ServerReset: Sendable, Equatable {
    /// Journal events forgotten (sequence numbers go on from where they were).
    public var journalEvents: Int
    /// Device tokens the registry forgot before the scenario's entries were applied again.
    public var registryTokens: Int
    /// Feedback tuples that were queued.
    public var feedbackEntries: Int
    /// Broadcast channels forgotten before the configured ones were added again.
    public var broadcastChannels: Int
    /// Web push subscriptions forgotten.
    public var webPushSubscriptions: Int
    /// The scenario started over: its name, the requests it had numbered, how often its rules
    /// had fired in all, the state it was in, and the seed it keeps.
    public var scenario: String
    /// The requests the scenario had numbered.
    public var scenarioRequests: Int
    /// How often its rules had fired, in all.
    public var scenarioFirings: Int
    /// The named state it was in.
    public var scenarioState: String
    /// Rules added on top of the scenario (`addRule`, `POST /v1/scenario/rules`), removed.
    public var addedRules: Int
    /// The seed its random streams start from again.
    public var seed: UInt64
    /// The clock's reading after the reset, and whether it is pinned (`--clock`) or real.
    public var clockMilliseconds: Int64
    /// Whether the clock was pinned.
    public var clockFixed: Bool

    package init(
        journalEvents: Int, registryTokens: Int, feedbackEntries: Int, broadcastChannels: Int, scenario: String,
        scenarioRequests: Int, scenarioFirings: Int, scenarioState: String, seed: UInt64, clockMilliseconds: Int64, clockFixed: Bool,
        webPushSubscriptions: Int = 0, addedRules: Int = 0
    ) {
        self.addedRules = addedRules
        self.webPushSubscriptions = webPushSubscriptions
        self.journalEvents = journalEvents
        self.registryTokens = registryTokens
        self.feedbackEntries = feedbackEntries
        self.broadcastChannels = broadcastChannels
        self.scenario = scenario
        self.scenarioRequests = scenarioRequests
        self.scenarioFirings = scenarioFirings
        self.scenarioState = scenarioState
        self.seed = seed
        self.clockMilliseconds = clockMilliseconds
        self.clockFixed = clockFixed
    }
}
