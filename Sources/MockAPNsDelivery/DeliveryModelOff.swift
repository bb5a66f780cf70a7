/// The delivery model was asked a question while it is off (`delivery.model: false`,
/// `--delivery-model off`). The server answers it as `MockAPNsServer.UsageError.deliveryModelOff`.
package struct DeliveryModelOff: Error, Sendable, CustomStringConvertible {
    /// The error; the delivery service says it when asked while the model is off.
    package init() {}

    /// What the error says: how to turn the model on.
    package var description: String {
        "the delivery model is off (--delivery-model off, delivery.model false): every device is online and no delivery is recorded"
    }
}
