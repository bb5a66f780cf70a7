import MockAPNsCore
import MockAPNsDelivery

/// Hands delivered notifications to an iOS Simulator: `xcrun simctl push <udid> <bundle id> -`
/// (or the command configured in its place) with the payload on standard input.
package struct SimulatorForwarder: DeliveryForwarder {
    package let command: SimulatorPushCommand

    package var name: String { "simulator" }

    package func job(for delivered: DeliveredNotification) -> ForwardingJob {
        switch command.decision(for: delivered.notification) {
        case .skip:
            return .skip
        case .cannotSend(let why):
            return .cannotSend(why)
        case .run(let arguments, _, _):
            return .forward(ForwardingJob.Work(
                delivered: delivered, description: arguments.joined(separator: " "), arguments: arguments,
                body: delivered.notification.payload
            ))
        }
    }

    package func run(_ work: ForwardingJob.Work, timeout: Duration) async -> ForwardingOutcome {
        let result = await CommandRunner.run(work.arguments, input: work.body, timeout: timeout)
        let printed = String(decoding: result.output, as: UTF8.self).trimmingWhitespace
        switch result.ending {
        case .exited(status: 0, signalled: false):
            return .done
        case .exited(let status, let signalled):
            let how = signalled ? "was killed by signal \(status)" : "exited with status \(status)"
            return .failed("the command \(how)" + (printed.isEmpty ? "" : " and printed: \(printed)"))
        case .timedOut:
            return .timedOut
        case .notStarted(let why):
            return .failed("the command could not be started: \(why)")
        }
    }
}

extension String {
    /// Without leading and trailing spaces and line breaks.
    package var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
