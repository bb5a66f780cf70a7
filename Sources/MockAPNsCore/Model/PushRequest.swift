import MockAPNsWire
/// One notification, normalized: the same value whether it came from an HTTP/2 stream or a
/// legacy binary frame. The decision core reads only this.
package struct PushRequest: Sendable, Equatable {
    /// The mouth it came through.
    package var transport: Transport
    /// The device token as lowercase hex (legacy binary tokens are hex-encoded).
    package var deviceToken: String
    /// `apns-topic`, if sent. Legacy frames have none: the certificate decides.
    package var topic: String?
    /// `apns-push-type`, if sent.
    package var pushType: PushType?
    /// `apns-id` exactly as received, if sent.
    package var apnsID: String?
    /// `apns-expiration` (epoch seconds) or the legacy expiry field.
    package var expiration: Int64?
    /// `apns-priority`, or the legacy priority item; `nil` means Apple's default (10).
    package var priority: Priority?
    /// `apns-collapse-id`, if sent.
    package var collapseID: String?
    /// The JSON payload bytes: an HTTP/2 body's array, or a legacy frame's payload in its
    /// connection's arena.
    package var payload: SharedBytes
    /// The legacy notification identifier (command 1 and 2), echoed in error packets.
    package var legacyIdentifier: UInt32?

    package init(
        transport: Transport,
        deviceToken: String,
        topic: String? = nil,
        pushType: PushType? = nil,
        apnsID: String? = nil,
        expiration: Int64? = nil,
        priority: Priority? = nil,
        collapseID: String? = nil,
        payload: SharedBytes,
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
        self.legacyIdentifier = legacyIdentifier
    }

    /// A request whose payload is an array (an HTTP/2 body, a test's bytes).
    package init(
        transport: Transport,
        deviceToken: String,
        topic: String? = nil,
        pushType: PushType? = nil,
        apnsID: String? = nil,
        expiration: Int64? = nil,
        priority: Priority? = nil,
        collapseID: String? = nil,
        payload: [UInt8],
        legacyIdentifier: UInt32? = nil
    ) {
        self.init(
            transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType, apnsID: apnsID,
            expiration: expiration, priority: priority, collapseID: collapseID, payload: SharedBytes(payload),
            legacyIdentifier: legacyIdentifier
        )
    }
}
