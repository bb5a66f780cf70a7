import MockAPNsCore
/// Which delivered notifications go to an iOS Simulator, and the command that hands one over:
/// Apple's `xcrun simctl push <udid> <bundle id> -`, which reads the payload from standard
/// input. The command is a template so that a machine without Xcode (and the tests) can put a
/// stand-in in its place.
package struct SimulatorPushCommand: Sendable, Equatable {
    /// The simulator for tokens not in `devices`: a UDID, or `booted` (simctl's name for the
    /// simulator that is running); `nil`: only mapped tokens are forwarded.
    package var defaultDevice: String?
    /// Device token (lowercase hex) to simulator UDID.
    package var devices: [String: String]
    /// The program and its arguments, with `{udid}` and `{bundleId}` to fill in.
    package var template: [String]
    /// The push types forwarded; a notification without `apns-push-type` counts as `alert`.
    package var pushTypes: Set<String>

    /// `xcrun simctl push {udid} {bundleId} -`.
    package static let defaultTemplate = ["xcrun", "simctl", "push", "{udid}", "{bundleId}", "-"]

    /// Alert and background pushes: what `simctl push` simulates (an `aps` payload with an
    /// alert, badge, sound or `content-available`). MockAPNs' choice; VoIP, Live Activity and
    /// the other PushKit types reach an app through other paths, so they are not sent.
    package static let defaultPushTypes: Set<String> = [PushType.alert.rawValue, PushType.background.rawValue]

    package init(defaultDevice: String?, devices: [String: String] = [:], template: [String] = defaultTemplate,
                pushTypes: Set<String> = defaultPushTypes) {
        self.defaultDevice = defaultDevice
        self.devices = Dictionary(devices.map { (DeviceRegistry.canonical($0.key), $0.value) }, uniquingKeysWith: { _, last in last })
        self.template = template
        self.pushTypes = pushTypes
    }

    /// Whether `text` can be a key of `devices`: a device token, hex digits only.
    package static func isDeviceToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
        }
    }

    /// What becomes of one delivered notification.
    package enum Decision: Sendable, Equatable {
        /// Run these arguments (the program first) with the payload on standard input.
        case run(arguments: [String], udid: String, bundleID: String)
        /// Not for the simulator: its push type is not one simctl takes, or its token has no
        /// simulator.
        case skip
        /// For the simulator, but it cannot be sent: why, in plain words.
        case cannotSend(String)
    }

    /// The command for `notification`, or why there is none.
    package func decision(for notification: DeliveryNotification) -> Decision {
        guard pushTypes.contains(notification.pushType ?? PushType.alert.rawValue) else { return .skip }
        guard let udid = devices[notification.deviceToken] ?? defaultDevice else { return .skip }
        guard let bundleID = notification.bundleID, !bundleID.isEmpty else {
            return .cannotSend("it has no apns-topic, and simctl push needs the app's bundle id")
        }
        let arguments = template.map { Self.fill($0, [("{udid}", udid), ("{bundleId}", bundleID)]) }
        return .run(arguments: arguments, udid: udid, bundleID: bundleID)
    }

    /// `word` with each placeholder replaced by its value.
    static func fill(_ word: String, _ values: [(placeholder: String, value: String)]) -> String {
        var result = ""
        var rest = Substring(word)
        scanning: while let first = rest.first {
            for (placeholder, value) in values where rest.hasPrefix(placeholder) {
                result += value
                rest = rest.dropFirst(placeholder.count)
                continue scanning
            }
            result.append(first)
            rest = rest.dropFirst()
        }
        return result
    }
}
