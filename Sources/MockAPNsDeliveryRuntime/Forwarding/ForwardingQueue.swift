import Logging
import MockAPNsCore
import MockAPNsJournal
import Synchronization
import MockAPNsDelivery

/// One forwarder's queue: delivered notifications wait here (at most `limit`) and a task of
/// its own hands them on one at a time, each within `timeout`. Nothing here touches an event
/// loop or the APNs answer: a failing, slow or stuck forwarder costs only its own queue, and
/// each way it goes wrong is journaled as a diagnosis and logged.
package final class ForwardingQueue: Sendable {
    package struct Limits: Sendable {
        package var queue: Int
        package var timeout: Duration
        package var slow: Duration
    }

    private struct State {
        var waiting: [ForwardingJob.Work] = []
        /// Notifications left out since the queue was last found full, not yet reported.
        var leftOut = 0
        var stopped = false
    }

    package let forwarder: any DeliveryForwarder
    private let limits: Limits
    private let journal: Journal
    private let logger: Logger
    private let state = Mutex(State())
    private let bell = Doorbell()
    private let worker = Mutex<Task<Void, Never>?>(nil)

    package init(forwarder: any DeliveryForwarder, limits: Limits, journal: Journal, logger: Logger) {
        self.forwarder = forwarder
        self.limits = limits
        self.journal = journal
        self.logger = logger
    }

    /// Starts the task that forwards.
    package func start() {
        let task = Task.detached { [self] in await work() }
        worker.withLock { $0 = task }
    }

    /// Stops forwarding: what is running is stopped (as on a timeout), what waits is dropped.
    package func stop() async {
        state.withLock { $0.stopped = true }
        let task = worker.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    /// Queues `delivered` if this forwarder wants it; a full queue leaves it out (reported).
    package func offer(_ delivered: DeliveredNotification) {
        switch forwarder.job(for: delivered) {
        case .skip:
            return
        case .cannotSend(let why):
            report(code: .deliveryForwardImpossible, "Notification #\(delivered.notification.sequence) was not forwarded to the \(forwarder.name): \(why).")
            return
        case .forward(let work):
            let firstLeftOut = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                guard state.waiting.count < limits.queue else {
                    state.leftOut += 1
                    return state.leftOut == 1
                }
                state.waiting.append(work)
                return false
            }
            if firstLeftOut {
                report(
                    code: .deliveryForwardQueueFull,
                    "The \(forwarder.name) forwarding queue is full (\(limits.queue) waiting): notification #\(delivered.notification.sequence) "
                        + "and any that follow while it stays full are not forwarded. Deliveries come faster than \(work.description) takes them.",
                    figures: [JournalFigure("queued", Int64(limits.queue))]
                )
            }
            bell.ring()
        }
    }

    private func work() async {
        while !Task.isCancelled {
            let (next, leftOut) = state.withLock { state -> (ForwardingJob.Work?, Int) in
                guard !state.waiting.isEmpty else { return (nil, 0) }
                let leftOut = state.leftOut
                state.leftOut = 0
                return (state.waiting.removeFirst(), leftOut)
            }
            if leftOut > 0 {
                report(code: .deliveryForwardQueueFull,
                       "\(leftOut) notification(s) were not forwarded to the \(forwarder.name) while its queue was full.",
                       figures: [JournalFigure("leftOut", Int64(leftOut))])
            }
            guard let next else {
                await bell.wait(timeout: nil)
                continue
            }
            await forward(next)
        }
    }

    private func forward(_ work: ForwardingJob.Work) async {
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = await forwarder.run(work, timeout: limits.timeout)
        let took = clock.now - started
        let milliseconds = Int64(took.components.seconds) * 1000 + Int64(took.components.attoseconds / 1_000_000_000_000_000)
        let what = "Forwarding notification #\(work.delivered.notification.sequence)"
            + (work.delivered.notification.apnsID.map { " (apns-id \($0))" } ?? "") + " to the \(forwarder.name) (\(work.description))"
        switch outcome {
        case .done:
            if took > limits.slow {
                report(code: .deliveryForwardSlow, "\(what) took \(milliseconds) ms, more than the \(Self.text(limits.slow)) expected.",
                       figures: [JournalFigure("milliseconds", milliseconds)])
            } else {
                logger.debug("forwarded", metadata: ["notification": "\(work.delivered.notification.sequence)", "to": "\(forwarder.name)"])
            }
        case .failed(let why):
            report(code: .deliveryForwardFailed, "\(what) failed: \(why). The APNs answer was not affected.",
                   figures: [JournalFigure("milliseconds", milliseconds)])
        case .timedOut:
            report(code: .deliveryForwardTimedOut,
                   "\(what) did not finish within \(Self.text(limits.timeout)) and was stopped. The APNs answer was not affected.",
                   figures: [JournalFigure("milliseconds", milliseconds)])
        }
    }

    private func report(code: DiagnosisCode, _ message: String, figures: [JournalFigure] = []) {
        logger.warning("\(message)", metadata: ["diagnosis": "\(code.rawValue)"])
        journal.record(.diagnosis(code: code, message: message, figures: figures))
    }

    /// `5 s`, `300 ms`.
    package static func text(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
