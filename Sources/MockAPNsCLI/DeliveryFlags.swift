import ArgumentParser
import MockAPNs
import MockAPNsCore
import MockAPNsDelivery

/// `mockapns serve` options for the delivery model and the forwarders.
struct DeliveryFlags: ParsableArguments {
    @Option(name: .customLong("delivery-model"), help: ArgumentHelp("Model what happens after the answer (devices offline, storage, the delivery log): on (default) or off (for load tests of the answers alone).", valueName: "on|off"))
    var deliveryModel: ObservationOptions.Switch?

    @Option(name: .customLong("batch-delay"), help: ArgumentHelp("Seconds priority 5 and 1 (and background) notifications to an online device are held before going out together (default 0: at once).", valueName: "seconds"))
    var batchDelay: Double?

    @Option(name: .customLong("forward-simulator"), help: ArgumentHelp(
        "Forward delivered alert and background notifications to an iOS Simulator: booted, a simulator UDID, or TOKEN=UDID for one device token (repeatable).",
        valueName: "booted|UDID|TOKEN=UDID"))
    var forwardSimulator: [String] = []

    @Option(name: .customLong("forward-simulator-command"), help: ArgumentHelp(
        "The command that hands a payload (on standard input) to the simulator, words separated by spaces; {udid} and {bundleId} are filled in (default: xcrun simctl push {udid} {bundleId} -).",
        valueName: "command"))
    var forwardSimulatorCommand: String?

    @Option(name: .customLong("forward-url"), help: ArgumentHelp("POST every delivered notification as JSON to this http:// URL.", valueName: "url"))
    var forwardURL: String?

    @Option(name: .customLong("forward-timeout"), help: ArgumentHelp("Seconds one forward may take before it is stopped and reported (default 5).", valueName: "seconds"))
    var forwardTimeout: Double?

    /// Applies the flags over the configuration file's values.
    func apply(to delivery: inout MockAPNsConfiguration.DeliverySettings) throws {
        if let deliveryModel { delivery.runsModel = deliveryModel == .on }
        if let batchDelay {
            guard batchDelay >= 0, batchDelay <= 86_400 else { throw ValidationError("--batch-delay must be from 0 to 86400 seconds") }
            delivery.batchDelayMilliseconds = Int64((batchDelay * 1000).rounded())
        }
        if !forwardSimulator.isEmpty || forwardSimulatorCommand != nil {
            var simulator = delivery.simulator ?? MockAPNsConfiguration.SimulatorForwarding()
            for value in forwardSimulator {
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 {
                    guard SimulatorPushCommand.isDeviceToken(parts[0]), !parts[1].isEmpty else {
                        throw ValidationError("--forward-simulator TOKEN=UDID needs a hex device token and a UDID, not \"\(value)\"")
                    }
                    simulator.devices[parts[0].lowercased()] = parts[1]
                } else {
                    guard !value.isEmpty else { throw ValidationError("--forward-simulator needs booted, a UDID or TOKEN=UDID") }
                    simulator.defaultDevice = value
                }
            }
            if let forwardSimulatorCommand {
                let words = forwardSimulatorCommand.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                guard !words.isEmpty else { throw ValidationError("--forward-simulator-command needs a program") }
                simulator.command = words
            }
            if simulator.defaultDevice == nil, simulator.devices.isEmpty {
                throw ValidationError("--forward-simulator-command needs --forward-simulator (booted, a UDID, or TOKEN=UDID) to say which simulator")
            }
            delivery.simulator = simulator
        }
        if let forwardURL {
            if let problem = WebhookAddress.problem(with: forwardURL) { throw ValidationError("--forward-url: \(problem)") }
            delivery.webhookURL = forwardURL
        }
        if let forwardTimeout {
            let range = MockAPNsConfiguration.DeliverySettings.secondsRange
            guard range.contains(forwardTimeout) else {
                throw ValidationError("--forward-timeout must be from \(range.lowerBound) to \(Int(range.upperBound)) seconds")
            }
            delivery.forwardTimeoutSeconds = forwardTimeout
        }
        do {
            try delivery.check()
        } catch {
            throw ValidationError("\(error.problem) (\(error.setting))")
        }
    }
}
