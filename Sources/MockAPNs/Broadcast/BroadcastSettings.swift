// Broadcast push in the server: its settings, the channel management listener, and the
// bridge's broadcast and channel management exchanges (the rules are MockAPNsBroadcast's).

import MockAPNsCore
import MockAPNsBroadcast

extension MockAPNsConfiguration {
    /// Broadcast push (iOS 18 Live Activities): the channel management listener, the rules
    /// Apple leaves unverified, and channels that exist from the start
    /// (docs/broadcast-protocol.md).
    package struct BroadcastSettings: Sendable, Equatable {
        /// The channel management API's port (Apple: 2195 sandbox, 2196 production, which
        /// MockAPNs' legacy listeners use). `0` picks a free port; `nil` (the default for an
        /// embedded server) runs no management listener. `mockapns serve` uses 2199.
        package var managePort: Int?
        /// The rules where Apple's behaviour is undocumented.
        package var options = BroadcastOptions.default
        /// Channels the registry holds from the start (and after a reset).
        package var channels: [BroadcastChannel] = []

        /// `mockapns serve`'s management port.
        package static let defaultManagePort = 2199

        package init(managePort: Int? = nil) {
            self.managePort = managePort
        }

        /// Every key of the `broadcast` object in a configuration file.
        static let fileKeys = [
            "channelManagementPort", "managePort", "channelLimit", "maximumChannelIdLength", "channelIdBytes", "storagePolicyStrings",
            "pushTypeCaseSensitive", "badStoragePolicyReason", "bundleNotCoveredReason", "disabledBundleIds",
            "allowedPriorities", "payloadLimit", "channels", "wrongMethodReason", "refuseMissingRequiredHeaders",
            "topicForOtherApp", "unparseableBody", "unknownBodyAttribute",
        ]

        /// Reads the `broadcast` object of a configuration file over these values.
        /// `environment` is the server's, the default for seeded channels.
        mutating func read(_ object: inout JSONObjectReader, environment: APNsEnvironment) throws(JSONFileError) {
            // `channelManagementPort`, the listener's one name (the listening line's
            // `channelManagement=`, `--channel-management-port`); `managePort` is its former name.
            if let port = try object.integer("managePort", in: 0...65535) { managePort = Int(port) }
            if let port = try object.integer("channelManagementPort", in: 0...65535) { managePort = Int(port) }
            if let limit = try object.integer("channelLimit", in: 0...10_000_000) { options.channelLimit = Int(limit) }
            if let length = try object.integer("maximumChannelIdLength", in: 4...4096) { options.maximumChannelIDLength = Int(length) }
            if let bytes = try object.integer("channelIdBytes", in: 1...1024) { options.channelIDByteCount = Int(bytes) }
            if let strings = try object.bool("storagePolicyStrings") { options.acceptsStoragePolicyStrings = strings }
            if let exact = try object.bool("pushTypeCaseSensitive") { options.pushTypeCaseSensitive = exact }
            if let reason = try object.oneOf("badStoragePolicyReason", Reason.self) { options.badStoragePolicyReason = reason }
            if let reason = try object.oneOf("bundleNotCoveredReason", Reason.self) { options.bundleNotCoveredReason = reason }
            if let bundles = try object.strings("disabledBundleIds") { options.disabledBundleIDs = Set(bundles) }
            if let elements = try object.array("allowedPriorities") {
                var priorities: Set<Priority> = []
                for (path, node) in elements {
                    guard case .number(let text) = node.value, let value = Int(text), let priority = Priority(rawValue: value) else {
                        throw JSONFileError(path: path, position: node.position, message: "expected 1, 5 or 10, found \(node.value.kindDescription)")
                    }
                    priorities.insert(priority)
                }
                options.allowedPriorities = priorities
            }
            if let limit = try object.integer("payloadLimit", in: 1...1_048_576) { options.payloadLimit = Int(limit) }
            if let reason = try object.oneOf("wrongMethodReason", Reason.self) { options.wrongMethodReason = reason }
            if let refuse = try object.bool("refuseMissingRequiredHeaders") { options.refusesMissingRequiredHeaders = refuse }
            if let policy = try ValidationOptions.policy(&object, "topicForOtherApp") { options.topicForOtherApp = policy }
            if let policy = try ValidationOptions.policy(&object, "unparseableBody") { options.unparseableBody = policy }
            if let policy = try ValidationOptions.policy(&object, "unknownBodyAttribute") { options.unknownBodyAttribute = policy }
            if let elements = try object.array("channels") {
                channels = []
                for (path, node) in elements {
                    var entry = try JSONObjectReader(node, path: path)
                    guard let id = try entry.string("id") else {
                        throw entry.missing("id", expected: "a base64 channel id")
                    }
                    guard ChannelID.isWellFormed(id, maximumLength: options.maximumChannelIDLength) else {
                        throw JSONFileError(path: entry.path(of: "id"), position: node.position,
                                            message: "expected a base64 channel id of at most \(options.maximumChannelIDLength) characters, found \"\(id)\"")
                    }
                    guard let bundleID = try entry.string("bundleId"), !bundleID.isEmpty else {
                        throw entry.missing("bundleId", expected: "the app's bundle id")
                    }
                    let policy = try entry.integer("messageStoragePolicy", in: 0...1).flatMap { MessageStoragePolicy(rawValue: Int($0)) }
                    let channelEnvironment = try entry.oneOf("environment", APNsEnvironment.self) ?? environment
                    try entry.finish(allowed: ["id", "bundleId", "messageStoragePolicy", "environment"])
                    channels.append(BroadcastChannel(
                        id: id, bundleID: bundleID, environment: channelEnvironment, storagePolicy: policy ?? .mostRecentMessageStored
                    ))
                }
            }
            try object.finish(allowed: Self.fileKeys)
        }
    }
}
