import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import Synchronization
import MockAPNsLegacy

/// Collects what every gateway connection did, and watches the connections together for
/// mistakes no single connection shows (connection churn). Shared by all gateway connections,
/// on any event loop.
package final class LegacyActivityLog: Sendable {
    /// How many closed connections are kept; older ones are forgotten first.
    package static let capacity = 10_000

    private struct State {
        /// The latest `capacity` closed connections are its last `capacity` elements; older
        /// ones are dropped in bulk once as many again have piled up, so recording one costs
        /// O(1) amortized instead of shifting the whole list for every connection.
        var connections: [LegacyConnectionReport] = []
        var diagnoses: [LegacyDiagnosis] = []
        var churn = LegacyChurnDetector()
    }

    private let state = Mutex(State())
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    /// Everything recorded so far.
    package var activity: LegacyGatewayActivity {
        state.withLock { LegacyGatewayActivity(connections: Array($0.connections.suffix(Self.capacity)), diagnoses: $0.diagnoses) }
    }

    /// Starts the churn window over (`MockAPNsServer.reset()`): connections closed before
    /// no longer count, and a churn diagnosed just before does not keep the next one quiet.
    package func startChurnOver() {
        state.withLock { $0.churn.startOver() }
    }

    /// Records a closed connection. Only connections that completed the TLS handshake count
    /// towards churn: a refused handshake carried no notification by design. Returns the churn
    /// diagnosis when this connection completed one (already logged), for the journal.
    @discardableResult
    package func record(_ report: LegacyConnectionReport, handshakeCompleted: Bool) -> LegacyDiagnosis? {
        let churn: LegacyDiagnosis? = state.withLock { state in
            if state.connections.count >= 2 * Self.capacity {
                state.connections.removeFirst(state.connections.count - Self.capacity)
            }
            state.connections.append(report)
            guard handshakeCompleted else { return nil }
            let diagnosis = state.churn.connectionClosed(
                notifications: report.notificationsReceived,
                at: NIODeadline.now().uptimeNanoseconds
            )
            if let diagnosis { state.diagnoses.append(diagnosis) }
            return diagnosis
        }
        if let churn {
            logger.notice("legacy gateway: \(churn.message)", metadata: ["diagnosis": "\(churn.code.rawValue)"])
        }
        return churn
    }
}
