import Synchronization

/// Wakes one waiting task: rung from any thread (an event loop included) at the cost of a
/// short lock, awaited by one task at a time. A ring while nobody waits is kept for the
/// next wait, so none is lost.
package final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Numbers each wait, so that a wait's timer ends that wait and no later one.
        var waits: UInt64 = 0
        /// The wait whose time ran out before it began waiting.
        var expired: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Wakes the waiter, or the next one to wait.
    package func ring() {
        wake(wait: nil)
    }

    /// Whether a ring is kept for the next wait: nobody waited when it came.
    package var isRung: Bool { state.withLock { $0.rung } }

    /// Returns once rung (at once if it was rung since the last wait), after `timeout`
    /// (`nil`: none), or when the task is cancelled.
    package func wait(timeout: Duration?) async {
        let number = state.withLock { state -> UInt64 in
            state.waits &+= 1
            return state.waits
        }
        // The timer ends this wait only. It does not ring: a wait that a ring ended first
        // cancels it, and a ring from it would be kept and end the next wait at once, and
        // that wait's timer the one after, so the waiter would never rest again.
        let timer = timeout.map { timeout in
            Task { [weak self] in
                do { try await Task.sleep(for: timeout) } catch { return }
                self?.timeUp(for: number)
            }
        }
        defer { timer?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled || state.expired == number {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
    }

    /// Ends wait `number` if it is still the one waiting, or marks it expired if it has not
    /// begun to wait yet; a wait that is over is left alone.
    private func timeUp(for number: UInt64) {
        wake(wait: number)
    }

    /// Resumes the waiter: any (a ring) or only wait `number` (its timer). With nobody
    /// waiting, a ring is kept for the next wait and a timer marks its own wait expired.
    private func wake(wait number: UInt64?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let number, state.waits != number { return nil }
            guard let waiter = state.waiter else {
                if let number { state.expired = number } else { state.rung = true }
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
