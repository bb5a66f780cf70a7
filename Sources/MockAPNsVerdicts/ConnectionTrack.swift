import MockAPNsCore
import MockAPNsJournal

extension ProviderJudge {
    /// One open connection: its transport, its provider's slot once known, and what was
    /// reported on it. Plain values only (the provider's identity is `slotProviders[slot]`, the
    /// last provider token `lastTokens[id]`): a track is read and written back for every
    /// notification, and copying one costs no retain or release.
    struct ConnectionTrack: Sendable {
        var transport: Transport
        var openedAt: Int64
        /// The index in `tracks` (and `slotProviders`) of the connection's provider, once known.
        var providerSlot: Int?
        var notifications = 0
        var reportedExpiredToken = false
        var reportedTokenUpdates = false
        var reportedStreamAfterGoAway = false
        /// A scenario fault dropped it: the drop counts from then, not from its close.
        var dropped = false
        /// Closed, and kept only because a failed notification names its provider through it.
        var closed = false
    }
}
