import MockAPNsCore
import MockAPNsJournal

extension ProviderJudge {
    /// A connection the server closed, and the connections the provider opened after it.
    struct Drop: Sendable {
        var connection: UInt64
        var at: Int64
        /// The first connections opened after it (at most `reconnectionsKept`: they are the
        /// evidence), and how many there were.
        var reconnections: [UInt64] = []
        var reconnectionCount = 0

        static let reconnectionsKept = 50

        mutating func reconnected(_ id: UInt64) {
            reconnectionCount += 1
            if reconnections.count < Self.reconnectionsKept { reconnections.append(id) }
        }
    }
}
