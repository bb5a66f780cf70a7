@testable import MockAPNsJournal

extension NotificationRecord {
    /// The bytes `JournalPacking` writes for the record in an event with this connection and
    /// stream: what tests of a record's layouts compare.
    func packed(connection: UInt64?, stream: Int32?) -> [UInt8] {
        let bytes = JournalChunkBytes(capacity: 16 * 1024)
        var writer = JournalByteWriter(bytes: bytes)
        JournalPacking.pack(
            .notification(self), header: JournalPacking.EventHeader(wallTime: 5, connection: connection, stream: stream),
            into: &writer
        )
        return bytes.withUnsafeBytes { Array($0) }
    }
}
