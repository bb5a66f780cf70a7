import MockAPNsCore
import MockAPNsJournal

/// What makes two requests the same notification: token, topic and payload, as a 64-bit
/// FNV-1a fingerprint of their bytes. Cheaper to make, keep and hash than the strings and
/// bytes; two different notifications share one with a chance of about one in 2^64 per pair.
struct NotificationKey: Hashable, Sendable {
    var fingerprint: UInt64

    init(_ record: NotificationRecord) {
        var hash = Fingerprint()
        record.withDeviceTokenUTF8 { hash.add($0.bindMemory(to: UInt8.self)) }
        // 0xFF never occurs in UTF-8: it separates the fields unambiguously.
        hash.add(UInt8(0xFF))
        hash.add((record.topic ?? "").utf8)
        hash.add(UInt8(record.topic == nil ? 0xFE : 0xFF))
        hash.add(word: UInt64(record.payloadLength))
        record.withPayloadBytes { hash.add($0.bindMemory(to: UInt8.self)) }
        fingerprint = hash.finished
    }
}
