/// What the registry says about sending to one token on one topic.
package enum TokenStatus: Sendable, Equatable {
    /// Nothing in the registry stands in the way.
    case deliverable
    /// APNs would refuse the push. `timestamp` (milliseconds since 1970) is set for the 410
    /// reasons only.
    case refused(Reason, timestamp: Int64?)
}

/// The registry's answer to one push: its status, and a diagnosis when the refusal has a
/// cause the answer alone does not tell (`DeviceRegistry.admission`).
package struct RegistryAdmission: Sendable, Equatable {
    package var status: TokenStatus
    package var diagnosis: Diagnosis?

    package init(_ status: TokenStatus, _ diagnosis: Diagnosis? = nil) {
        self.status = status
        self.diagnosis = diagnosis
    }
}
