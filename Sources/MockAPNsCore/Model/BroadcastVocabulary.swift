// Apple's words for broadcast push (iOS 18) that requests, records and scenarios share: a
// channel's storage policy and the channel management API's operations.

/// A channel's `message-storage-policy`.
package enum MessageStoragePolicy: Int, CaseIterable, Sendable, Hashable, Codable {
    /// Only devices online when a broadcast arrives get it.
    case noMessageStored = 0
    /// APNs keeps the latest broadcast for devices that come online later.
    case mostRecentMessageStored = 1
}

/// The channel management API's four operations, named as the journal and scenarios name them.
package enum ChannelOperation: String, CaseIterable, Sendable, Hashable, Codable {
    /// `POST /1/apps/<bundleID>/channels`
    case create
    /// `GET /1/apps/<bundleID>/channels` with `apns-channel-id`
    case read
    /// `GET /1/apps/<bundleID>/all-channels`
    case readAll
    /// `DELETE /1/apps/<bundleID>/channels` with `apns-channel-id`
    case delete
}
