import MockAPNsCore
import MockAPNsJournal

/// The request fields besides token, topic and payload that a refusal may concern: sending the
/// request again with one of them changed is a fix, not a retry.
struct RequestShape: Equatable, Sendable {
    var pushType: String?
    var priority: Int?
    var expiration: Int64?
    var collapseID: String?
    var apnsID: String?
    /// What the record says made the request wrong where its fields cannot show it (a header
    /// sent twice, a path no endpoint serves): a request without that problem was fixed.
    var problem: String?

    init(_ record: NotificationRecord) {
        pushType = record.pushType
        priority = record.priority
        expiration = record.expiration
        collapseID = record.collapseID
        apnsID = record.requestAPNsID
        problem = record.problem
    }
}
