import MockAPNsCore

/// Answers as the server records them, for tests that write journal events by hand (the
/// judge's scripts, the delivery model's).
extension SentAnswer {
    package static let ok = SentAnswer(status: 200, apnsID: "00000000-0000-0000-0000-000000000001", accepted: true)

    package static func refused(_ reason: Reason) -> SentAnswer {
        SentAnswer(status: reason.httpStatus, reason: reason, timestamp: reason.carriesTimestamp ? 1_767_225_600_000 : nil, accepted: false)
    }

    package static func fault(_ fault: AppliedFault) -> SentAnswer {
        .nothing(fault: fault)
    }

    /// The legacy gateway's error packet for `reason`, naming notification `identifier`.
    package static func legacyRefusal(_ reason: Reason, identifier: UInt32) -> SentAnswer {
        SentAnswer(reason: reason, legacyPacket: LegacyErrorResponse(status: reason.legacyStatus, identifier: identifier), accepted: false)
    }

    /// What the gateway records for a frame it dropped unexamined after the connection's error.
    package static let droppedAfterError = SentAnswer(accepted: false)
}
