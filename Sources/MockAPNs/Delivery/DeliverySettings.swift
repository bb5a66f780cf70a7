// The delivery model in the server: its settings, and the server's API over the delivery
// service (MockAPNsDeliveryRuntime runs it, MockAPNsDelivery holds its rules).

import MockAPNsDeliveryRuntime
import MockAPNsCore
import MockAPNsJournal
import MockAPNsDelivery

extension MockAPNsConfiguration {
    /// The delivery model (docs/delivery.md) and where delivered notifications are forwarded
    /// (`delivery` in a configuration file).
    package struct DeliverySettings: Sendable, Equatable {
        /// Whether the delivery model runs (the default). Off, nothing after the answer is
        /// modelled or recorded: every device is always online, there is no delivery log and
        /// nothing to forward. For load tests that measure the answers alone, as
        /// `--journal-frames off` is: the model costs each accepted notification a `delivery`
        /// event and a few microseconds of CPU off the event loops.
        package var runsModel = true
        /// The batch delay and storage limit, as the model reads them.
        package var options = DeliveryOptions.default
        /// How long priority 5 and 1 notifications (and background pushes) to an online device
        /// are held before they go out together, in milliseconds. Apple says they "might get
        /// grouped and delivered in bursts" without saying when; `0` (the default, MockAPNs'
        /// choice) delivers them at once, so only a test that asks for batching sees it.
        /// Held within 0 and ten years.
        package var batchDelayMilliseconds: Int64 {
            get { options.batchDelayMilliseconds }
            set { options = DeliveryOptions(batchDelayMilliseconds: newValue, maximumStorageMilliseconds: options.maximumStorageMilliseconds) }
        }
        /// The longest a notification is stored for an offline device, in milliseconds, and how
        /// long one without `apns-expiration` is kept. Apple: "it may store the notification for
        /// 30 days or less"; 30 days is the default. Held within 0 and ten years.
        package var maximumStorageMilliseconds: Int64 {
            get { options.maximumStorageMilliseconds }
            set { options = DeliveryOptions(batchDelayMilliseconds: options.batchDelayMilliseconds, maximumStorageMilliseconds: newValue) }
        }
        /// Hands each delivered notification to an iOS Simulator; `nil`: no simulator.
        package var simulator: SimulatorForwarding?
        /// POSTs each delivered notification as JSON to this `http://` URL; `nil`: none.
        package var webhookURL: String?
        /// How long one forward may take before it is stopped (the command killed, the
        /// connection closed) and reported.
        package var forwardTimeoutSeconds: Double = 5
        /// A forward that takes longer than this (but finishes) is reported as slow.
        package var forwardSlowSeconds: Double = 1
        /// Notifications waiting for each forwarder at most; more are left out and reported.
        package var forwardQueueLimit: Int = 256

        /// The defaults: the model on, Apple's storage limit, no batching, no forwarders.
        package init() {}

        /// The range of the forwarding times, in seconds.
        package static let secondsRange: ClosedRange<Double> = 0.001...3600

        static let fileKeys = [
            "model", "batchDelaySeconds", "maximumStorageSeconds", "simulator", "webhookUrl", "forwardTimeoutSeconds",
            "forwardSlowSeconds", "forwardQueueLimit",
        ]

        /// Refuses what a configuration file cannot hold but code can set: a webhook URL that
        /// is not a usable `http://` URL, a simulator without a command.
        package func check() throws(DeliverySettingsError) {
            if !runsModel, simulator != nil || webhookURL != nil {
                throw DeliverySettingsError(setting: "delivery.model", problem: "forwarding hands on what the delivery model delivers, so it needs the model on")
            }
            if let webhookURL, let problem = WebhookAddress.problem(with: webhookURL) {
                throw DeliverySettingsError(setting: "delivery.webhookUrl", problem: problem)
            }
            if let simulator, simulator.command.first?.isEmpty ?? true {
                throw DeliverySettingsError(setting: "delivery.simulator.command", problem: "expected a program and its arguments")
            }
        }

        /// Reads the `delivery` object of a configuration file over these values.
        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let model = try object.bool("model") { runsModel = model }
            let longest = Double(DeliveryOptions.range.upperBound / 1000)
            if let seconds = try object.double("batchDelaySeconds", in: 0...longest) {
                batchDelayMilliseconds = Int64((seconds * 1000).rounded())
            }
            if let seconds = try object.double("maximumStorageSeconds", in: 0...longest) {
                maximumStorageMilliseconds = Int64((seconds * 1000).rounded())
            }
            if var simulator = try object.object("simulator") {
                var forwarding = SimulatorForwarding()
                try forwarding.read(&simulator)
                self.simulator = forwarding
            }
            if let node = object.node("webhookUrl") {
                guard case .string(let text) = node.value else {
                    throw object.invalid("webhookUrl", node, "expected an http:// URL, found \(node.value.kindDescription)")
                }
                if let problem = WebhookAddress.problem(with: text) {
                    throw object.invalid("webhookUrl", node, problem)
                }
                webhookURL = text
            }
            if let value = try object.double("forwardTimeoutSeconds", in: Self.secondsRange) { forwardTimeoutSeconds = value }
            if let value = try object.double("forwardSlowSeconds", in: Self.secondsRange) { forwardSlowSeconds = value }
            if let value = try object.integer("forwardQueueLimit", in: 1...1_000_000) { forwardQueueLimit = Int(value) }
            try object.finish(allowed: Self.fileKeys)
        }
    }

    /// Forwarding to an iOS Simulator: each delivered notification of a push type the
    /// simulator takes runs `command` with the payload on standard input.
    package struct SimulatorForwarding: Sendable, Equatable {
        /// The simulator for tokens without an entry in `devices`: a UDID or `booted`;
        /// `nil`: only the tokens in `devices` are forwarded.
        package var defaultDevice: String?
        /// Device token (lowercase hex) to simulator UDID.
        package var devices: [String: String] = [:]
        /// The program and its arguments; `{udid}` and `{bundleId}` are replaced. The default is
        /// Apple's `xcrun simctl push <udid> <bundle id> -` (the payload on standard input).
        package var command: [String] = SimulatorPushCommand.defaultTemplate
        /// The push types forwarded (absent `apns-push-type` counts as `alert`).
        package var pushTypes: Set<String> = SimulatorPushCommand.defaultPushTypes

        package init(defaultDevice: String? = nil, devices: [String: String] = [:]) {
            self.defaultDevice = defaultDevice
            self.devices = devices
        }

        /// The core's view of these settings.
        var pushCommand: SimulatorPushCommand {
            SimulatorPushCommand(defaultDevice: defaultDevice, devices: devices, template: command, pushTypes: pushTypes)
        }

        static let fileKeys = ["device", "devices", "command", "pushTypes"]

        mutating func read(_ object: inout JSONObjectReader) throws(JSONFileError) {
            if let device = try object.string("device") { defaultDevice = device }
            if let node = object.node("devices") {
                guard case .object(let members) = node.value else {
                    throw object.invalid("devices", node, "expected an object of device tokens to simulator UDIDs, found \(node.value.kindDescription)")
                }
                for member in members {
                    guard case .string(let udid) = member.value.value, !udid.isEmpty else {
                        throw object.invalid("devices", member.value, "expected a simulator UDID string for \"\(member.key)\"")
                    }
                    guard SimulatorPushCommand.isDeviceToken(member.key) else {
                        throw object.invalid("devices", member.value, "expected a device token of hex digits as the key, found \"\(member.key)\"")
                    }
                    devices[member.key.lowercased()] = udid
                }
            }
            if let node = object.node("command") {
                let example = "a program and its arguments, such as [\"xcrun\", \"simctl\", \"push\", \"{udid}\", \"{bundleId}\", \"-\"]"
                guard case .array(let elements) = node.value, !elements.isEmpty else {
                    throw object.invalid("command", node, "expected \(example)")
                }
                var words: [String] = []
                for element in elements {
                    guard case .string(let word) = element.value, !(words.isEmpty && word.isEmpty) else {
                        throw object.invalid("command", element, "expected \(example)")
                    }
                    words.append(word)
                }
                command = words
            }
            if let node = object.node("pushTypes") {
                let names = PushType.allCases.map(\.rawValue)
                guard case .array(let elements) = node.value else {
                    throw object.invalid("pushTypes", node, "expected an array of push types among \(names.joined(separator: ", "))")
                }
                var types: Set<String> = []
                for element in elements {
                    guard case .string(let type) = element.value, names.contains(type) else {
                        throw object.invalid("pushTypes", element, "expected a push type among \(names.joined(separator: ", "))")
                    }
                    types.insert(type)
                }
                pushTypes = types
            }
            try object.finish(allowed: Self.fileKeys)
        }
    }
}

/// A delivery setting the server cannot start with.
package struct DeliverySettingsError: Error, Sendable, CustomStringConvertible {
    package var setting: String
    package var problem: String
    package var description: String { "\(setting): \(problem)" }
}

extension MockAPNsConfiguration.DeliverySettings {
    /// What the delivery service is set up with.
    var service: DeliveryServiceSettings {
        DeliveryServiceSettings(
            runsModel: runsModel, options: options, simulatorCommand: simulator?.pushCommand, webhookURL: webhookURL,
            forwardTimeoutSeconds: forwardTimeoutSeconds, forwardSlowSeconds: forwardSlowSeconds, forwardQueueLimit: forwardQueueLimit
        )
    }
}
