import MockAPNsLegacyServer
import Logging
import MockAPNsLegacy
import XCTest

/// The gateway's activity keeps the latest connections, a fixed number of them, in order.
final class LegacyActivityLogTests: XCTestCase {
    func testTheActivityKeepsTheLatestConnectionsInTheOrderTheyClosed() {
        let log = LegacyActivityLog(logger: Logger(label: "test"))
        let closed = 2 * LegacyActivityLog.capacity + 1_234
        for number in 1...closed {
            var report = LegacyConnectionReport()
            report.accepted = number
            log.record(report, handshakeCompleted: false)
        }
        let kept = log.activity.connections.map(\.accepted)
        XCTAssertEqual(kept.count, LegacyActivityLog.capacity)
        XCTAssertEqual(kept, Array((closed - LegacyActivityLog.capacity + 1)...closed))
    }
}
