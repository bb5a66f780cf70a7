/// One notification, normalized: the same value whether it came from an HTTP/2 stream or a
/// legacy binary frame. The decision core reads only this.
public struct PushRequest: Sendable, Equatable {
    /// The mouth it came through.
    public var transport: Transport
    /// The device token as lowercase hex (legacy binary tokens are hex-encoded).
    public var deviceToken: String
    /// `apns-topic`, if sent. Legacy frames have none: the certificate decides.
    public var topic: String?
    /// `apns-push-type`, if sent.
    public var pushType: PushType?
    /// `apns-id` exactly as received, if sent.
    public var apnsID: String?
    /// `apns-expiration` (epoch seconds) or the legacy expiry field.
    public var expiration: Int64?
    /// `apns-priority`, or the legacy priority item; `nil` means Apple's default (10).
    public var priority: Priority?
    /// `apns-collapse-id`, if sent.
    public var collapseID: String?
    /// The JSON payload bytes.
    public var payload: [UInt8]
    /// The `authorization` header value, if sent.
    public var authorization: String?
    /// The legacy notification identifier (command 1 and 2), echoed in error packets.
    public var legacyIdentifier: UInt32?

    public init(
        transport: Transport,
        deviceToken: String,
        topic: String? = nil,
        pushType: PushType? = nil,
        apnsID: String? = nil,
        expiration: Int64? = nil,
        priority: Priority? = nil,
        collapseID: String? = nil,
        payload: [UInt8],
        authorization: String? = nil,
        legacyIdentifier: UInt32? = nil
    ) {
        self.transport = transport
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.apnsID = apnsID
        self.expiration = expiration
        self.priority = priority
        self.collapseID = collapseID
        self.payload = payload
        self.authorization = authorization
        self.legacyIdentifier = legacyIdentifier
    }
}
