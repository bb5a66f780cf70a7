import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import Synchronization

/// The HTTP/2 listener's connection-churn detector, shared by every connection on any event
/// loop. Connections report a handful of moments each (opened, idle after the first
/// request, reused, closed), never every request. A diagnosis is logged here and handed back
/// for the reporting connection to journal.
final class HTTP2ChurnWatch: Sendable {
    private let detector = Mutex(HTTP2ChurnDetector())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func opened(_ id: UInt64) -> HTTP2Churn? {
        report(detector.withLock { $0.connectionOpened(id, at: NIODeadline.now().uptimeNanoseconds) })
    }

    func idleAfterFirstRequest(_ id: UInt64) {
        detector.withLock { $0.idleAfterFirstRequest(id) }
    }

    func reused(_ id: UInt64) {
        detector.withLock { $0.reused(id) }
    }

    func closed(_ id: UInt64, requests: Int) -> HTTP2Churn? {
        report(detector.withLock { $0.connectionClosed(id, requests: requests, at: NIODeadline.now().uptimeNanoseconds) })
    }

    private func report(_ churn: HTTP2Churn?) -> HTTP2Churn? {
        if let churn {
            logger.notice("HTTP/2: \(churn.message)", metadata: ["diagnosis": "\(HTTP2Churn.code.rawValue)"])
        }
        return churn
    }
}
