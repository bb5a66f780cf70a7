import MockAPNsCore
import MockAPNsJournal
import MockAPNsDelivery

/// The delivery model through the embedding API: devices online and offline, what is stored
/// for them, and each notification's delivery log.
///
/// ```swift
/// try await server.setDevice(token, online: false)
/// // ... three pushes to `token` for the same app ...
/// try await server.setDevice(token, online: true)       // only the last is delivered
/// let log = try await server.deliveryLog(apnsUniqueID)  // accepted, stored, superseded ...
/// ```
///
/// Each throws `MockAPNsServer.UsageError.deliveryModelOff` when
/// `configuration.runsDeliveryModel` is false.
extension MockAPNsServer {
    /// Takes `token`'s device offline (`online: false`) or brings it online, as of now: every
    /// notification already recorded meets the device as it was, every later one as it is now.
    /// Coming online delivers what is stored for it. Returns the device as it then is.
    @discardableResult
    public func setDevice(_ token: String, online: Bool) async throws(UsageError) -> DeviceDeliveryState {
        do { return try await delivery.setDevice(token, online: online) } catch { throw .deliveryModelOff }
    }

    /// One device: online or not, what is stored for it and what is held for its next batch.
    public func device(_ token: String) async throws(UsageError) -> DeviceDeliveryState {
        do { return try await delivery.device(token) } catch { throw .deliveryModelOff }
    }

    /// Every device that is offline or has notifications waiting, by token (every other
    /// device is online with nothing waiting).
    public func devices() async throws(UsageError) -> [DeviceDeliveryState] {
        do { return try await delivery.devices() } catch { throw .deliveryModelOff }
    }

    /// The delivery log of the notifications `id` names, oldest first: `id` is an
    /// `apns-unique-id`, an `apns-id` as answered, or the journal sequence number of the
    /// notification's event (the id of a legacy notification). Empty when the journal holds
    /// none.
    public func deliveryLog(_ id: String) async throws(UsageError) -> [DeliveryTimeline] {
        do { return try await delivery.timelines(for: id) } catch { throw .deliveryModelOff }
    }

    /// Takes in what the journal handed to the delivery model and passes the deadlines due
    /// by the clock now. The model does this by itself within milliseconds; call it after
    /// moving `clock` through the Swift API to see the result at once.
    public func catchUpDelivery() async {
        await delivery.catchUp()
    }

    /// The delivery rules' numbers in force.
    package var deliveryOptions: DeliveryOptions { configuration.delivery.options }

    /// The sequence through which the delivery model has taken in every accepted notification
    /// and recorded its steps (`nil` with the model off): one up to it that no `delivery`
    /// event names was delivered on arrival.
    package var deliveryDerivedThrough: UInt64? { delivery.derivedThrough }
}
