import MockAPNsCore
import MockAPNsDelivery

/// Somewhere delivered notifications are handed on: an iOS Simulator, a webhook.
package protocol DeliveryForwarder: Sendable {
    /// For diagnoses and logs: `simulator`, `webhook`.
    var name: String { get }
    /// What becomes of `delivered` here: a job to run, nothing, or why it cannot be sent.
    func job(for delivered: DeliveredNotification) -> ForwardingJob
    /// Runs `job`, stopping it once `timeout` has passed. Never throws: every way it can end
    /// is an outcome to report.
    func run(_ job: ForwardingJob.Work, timeout: Duration) async -> ForwardingOutcome
}

/// What one delivered notification means for one forwarder.
package enum ForwardingJob: Sendable {
    /// Hand it on.
    case forward(Work)
    /// Not for this forwarder (a push type the simulator does not take, a token with no
    /// simulator).
    case skip
    /// For this forwarder, but it cannot be sent; why.
    case cannotSend(String)

    /// The work of one forward: the notification, and what to do with it (the command line,
    /// the request) in words for diagnoses.
    package struct Work: Sendable {
        var delivered: DeliveredNotification
        /// `xcrun simctl push booted com.example.app -`, `POST http://127.0.0.1:8080/push`.
        var description: String
        /// The command's arguments (program first), for the simulator forwarder.
        var arguments: [String] = []
        /// The bytes to send: the payload on a command's standard input, the JSON body of a POST.
        var body: [UInt8]
    }
}

/// How one forward ended.
package enum ForwardingOutcome: Sendable, Equatable {
    /// Done (the command exited 0, the receiver answered 2xx).
    case done
    /// It ended, but not well: why, in plain words (an exit status and what the command
    /// printed, an HTTP status, a refused connection).
    case failed(String)
    /// Still running when the timeout came: it was stopped.
    case timedOut
}
