import MockAPNsCore
import MockAPNsJournal

/// A token refused for good (HTTP/2's 410, the legacy gateway's status 8): when, where, and
/// the answer as the client met it.
struct GoneToken: Sendable {
    var answeredAt: Int64
    var sequence: UInt64
    var reason: Reason
    /// The connection whose answer said so: frames the legacy gateway dropped after that
    /// answer on the same connection were written before the provider could read it.
    var connection: UInt64
    /// The status byte sent, when the answer was a legacy error packet.
    var legacyStatus: LegacyStatus?
    var transport: Transport

    init(_ record: NotificationRecord, reason: Reason, answeredAt: Int64, sequence: UInt64, connection: UInt64) {
        self.answeredAt = answeredAt
        self.sequence = sequence
        self.reason = reason
        self.connection = connection
        self.legacyStatus = record.legacyStatus
        self.transport = record.transport
    }

    /// The answer in a finding's words: `410 Unregistered` over HTTP/2; on the legacy gateway
    /// the status byte it really got (`status 8 (Unregistered)`), or, for command 0, the
    /// silent close that stood for it.
    var answer: String {
        guard transport == .legacy else { return "\(reason.httpStatus) \(reason.rawValue)" }
        if let legacyStatus { return "status \(legacyStatus.rawValue) (\(reason.rawValue))" }
        return "with a close and no status packet (\(reason.rawValue))"
    }
}

extension AttemptOutcome {
    /// Whether the answer said the token is gone (410, legacy status 8).
    var isGone: Bool {
        if case .gone = self { return true }
        return false
    }
}

extension NotificationRecord {
    /// Whether this is a legacy frame the gateway dropped unexamined after the connection's
    /// error (or shutdown): frames stream without answers, so the provider wrote it before it
    /// could read that error.
    var isLegacyFrameDroppedAfterAnError: Bool {
        transport == .legacy && dropped
    }
}
