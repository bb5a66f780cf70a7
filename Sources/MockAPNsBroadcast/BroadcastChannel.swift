import MockAPNsCore
/// One broadcast channel (iOS 18 Live Activities): what the channel management API creates
/// and a broadcast is sent to.
package struct BroadcastChannel: Sendable, Equatable, Hashable {
    /// The channel id: standard base64, as APNs hands it out.
    package var id: String
    /// The app's bundle id (`/1/apps/<bundleID>/channels`).
    package var bundleID: String
    /// The environment the channel was created in; channels of one environment are unknown in
    /// the other.
    package var environment: APNsEnvironment
    /// `message-storage-policy`.
    package var storagePolicy: MessageStoragePolicy
    /// When it was created, milliseconds since 1970 by the server clock.
    package var createdAtMilliseconds: Int64

    /// The only `push-type` a channel has (Apple: "The only allowed value is LiveActivity").
    package static let pushType = "LiveActivity"

    package init(
        id: String, bundleID: String, environment: APNsEnvironment,
        storagePolicy: MessageStoragePolicy, createdAtMilliseconds: Int64 = 0
    ) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAtMilliseconds = createdAtMilliseconds
    }
}

