import MockAPNsCore
import MockAPNsJournal

extension LegacyJournaling {
    /// Something the decision noticed about a notification (its token's environment, a full
    /// rate window), recorded before the notification itself.
    func record(_ diagnosis: Diagnosis) {
        recorder.record(diagnosis.event)
    }
}
