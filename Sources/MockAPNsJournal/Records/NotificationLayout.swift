import MockAPNsWire
import MockAPNsCore

/// A notification record's fields as one of its layouts holds them: a box's
/// (`NotificationRecord.Box`) or a compact entry's (`CompactLegacyRecord`,
/// `CompactHTTP2Record`). The record's accessors and the journal's packer read any of them
/// through these, so all lay out the same bytes. The byte strings and the larger values are lent to a
/// closure rather than returned, so that reading them copies nothing.
protocol NotificationLayout {
    var sequence: UInt64 { get }
    var wallTimeMilliseconds: Int64 { get }
    var connectionID: UInt64? { get }
    var streamID: Int32? { get }
    var transport: Transport { get }
    var topic: String? { get }
    var pushType: String? { get }
    var requestAPNsID: String? { get }
    var priority: Int? { get }
    var expiration: Int64? { get }
    var collapseID: String? { get }
    var legacyIdentifier: UInt32? { get }
    var legacyCommand: UInt8? { get }
    var payloadLength: Int { get }
    var payloadIsJSON: Bool? { get }
    var dropped: Bool { get }
    var problem: String? { get }
    var handlingMicroseconds: Int? { get }
    var environment: APNsEnvironment? { get }
    var webPush: WebPushDetails? { get }
    func withDeviceTokenUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result
    func withPayloadBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result
    func withAuthentication<Result>(_ body: (JournalAuthentication) -> Result) -> Result
    func withAnswer<Result>(_ body: (SentAnswer) -> Result) -> Result
}

// A box lends its fields where they are: a method or property of the box, not of its `fields`
// struct, which called on `fields` would copy the whole struct first.
extension NotificationRecord.Box: NotificationLayout {
    @usableFromInline var sequence: UInt64 { fields.sequence }
    @usableFromInline var wallTimeMilliseconds: Int64 { fields.wallTimeMilliseconds }
    @usableFromInline var connectionID: UInt64? { fields.connectionID }
    @usableFromInline var streamID: Int32? { fields.streamID }
    @usableFromInline var transport: Transport { fields.transport }
    @usableFromInline var topic: String? { fields.topic }
    @usableFromInline var pushType: String? { fields.pushType }
    @usableFromInline var requestAPNsID: String? { fields.requestAPNsID }
    @usableFromInline var priority: Int? { fields.priority }
    @usableFromInline var expiration: Int64? { fields.expiration }
    @usableFromInline var collapseID: String? { fields.collapseID }
    @usableFromInline var legacyIdentifier: UInt32? { fields.legacyIdentifier }
    @usableFromInline var legacyCommand: UInt8? { fields.legacyCommand }
    @usableFromInline var payloadLength: Int { fields.payloadLength }
    @usableFromInline var payloadIsJSON: Bool? { fields.payloadIsJSON }
    @usableFromInline var dropped: Bool { fields.dropped }
    @usableFromInline var problem: String? { fields.problem }
    @usableFromInline var handlingMicroseconds: Int? { fields.handlingMicroseconds }
    @usableFromInline var environment: APNsEnvironment? { fields.environment }
    @usableFromInline var webPush: WebPushDetails? { fields.webPush }

    @inlinable func withDeviceTokenUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = fields.deviceToken.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(fields.deviceToken.utf8).withUnsafeBytes(body)
    }

    @inlinable func withPayloadBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        fields.payload.withUnsafeBytes(body)
    }

    @inlinable func withAuthentication<Result>(_ body: (JournalAuthentication) -> Result) -> Result {
        body(fields.authentication)
    }

    @inlinable func withAnswer<Result>(_ body: (SentAnswer) -> Result) -> Result {
        body(fields.answer)
    }
}
