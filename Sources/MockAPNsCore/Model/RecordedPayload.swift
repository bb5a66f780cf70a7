import MockAPNsWire
/// How much of a payload a record keeps, for notifications and broadcasts alike.
package enum RecordedPayload {
    /// Enough to read any APNs payload (4 KB, 5 KB for VoIP) without letting a flood of huge
    /// bodies fill memory.
    package static let limit = 5 * 1024

    /// The bytes of `payload` a record keeps. Slicing only when needed keeps the common case
    /// free of copies.
    package static func kept(_ payload: [UInt8]) -> [UInt8] {
        payload.count > limit ? Array(payload.prefix(limit)) : payload
    }

    /// The same, for shared bytes (a legacy payload in its connection's arena).
    package static func kept(_ payload: SharedBytes) -> SharedBytes {
        payload.count > limit ? SharedBytes(Array(payload.prefix(limit))) : payload
    }
}
