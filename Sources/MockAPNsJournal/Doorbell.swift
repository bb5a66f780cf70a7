import Synchronization

/// Wakes one waiting task: rung from any thread (an event loop included) at the cost of a
/// short lock, awaited by one task at a time. A ring while nobody waits is kept for the
/// next wait, so none is lost.
package final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    package init() {}

    /// Wakes the waiter, or the next one to wait.
    package func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Whether a ring is kept for the next wait: nobody waited when it came.
    package var isRung: Bool { state.withLock { $0.rung } }

    /// Returns once rung (at once if it was rung since the last wait), after `timeout`
    /// (`nil`: none), or when the task is cancelled.
    package func wait(timeout: Duration?) async {
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.ring()
            }
        }
        defer { timer?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
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
}
