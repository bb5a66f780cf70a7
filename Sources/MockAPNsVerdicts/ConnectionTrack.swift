import MockAPNsCore
import MockAPNsJournal

extension ProviderJudge {
    /// One open connection: its transport, its provider once known, and what was reported on it.
    struct ConnectionTrack: Sendable {
        var transport: Transport
        var openedAt: Int64
        var provider: ProviderIdentity?
        /// `provider`'s index in `tracks`, set with it.
        var providerSlot: Int?
        var notifications = 0
        var reportedExpiredToken = false
        var reportedTokenUpdates = false
        var reportedStreamAfterGoAway = false
        /// A scenario fault dropped it: the drop counts from then, not from its close.
        var dropped = false
        /// Closed, and kept only because a failed notification names its provider through it.
        var closed = false
        /// The provider token its last notification carried, already counted in its provider's
        /// `tokensSeen`: the next notification with the same token (nearly every one) is
        /// passed by without hashing the provider's identity.
        var lastToken: (issuedAt: Int64, teamID: String, keyID: String)?
    }
}
