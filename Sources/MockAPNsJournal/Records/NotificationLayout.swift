import MockAPNsCore

/// A notification record's fields as one of its two layouts holds them: a box's
/// (`NotificationRecord.Fields`) or an accepted legacy notification's compact entry
/// (`CompactLegacyRecord`). The record's accessors and the journal's packer read either through
/// these, so both lay out the same bytes. The byte strings and the larger values are lent to a
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

extension NotificationRecord.Fields: NotificationLayout {
    @usableFromInline func withDeviceTokenUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = deviceToken.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(deviceToken.utf8).withUnsafeBytes(body)
    }

    @usableFromInline func withPayloadBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        payload.withUnsafeBytes(body)
    }

    @usableFromInline func withAuthentication<Result>(_ body: (JournalAuthentication) -> Result) -> Result {
        body(authentication)
    }

    @usableFromInline func withAnswer<Result>(_ body: (SentAnswer) -> Result) -> Result {
        body(answer)
    }
}
