/// The legacy binary protocol's frames as bytes again: the notification commands (0, 1 and
/// 2), the error-response packet (command 8) and feedback tuples, big-endian as Apple's
/// documentation of the protocol gives them.
package enum LegacyFrameBytes {
    /// What one notification said.
    package struct Notification: Sendable, Equatable {
        package var command: UInt8
        package var token: [UInt8]
        package var payload: [UInt8]
        package var identifier: UInt32?
        package var expiry: UInt32?
        package var priority: UInt8?

        package init(command: UInt8, token: [UInt8], payload: [UInt8], identifier: UInt32?, expiry: UInt32?, priority: UInt8?) {
            self.command = command
            self.token = token
            self.payload = payload
            self.identifier = identifier
            self.expiry = expiry
            self.priority = priority
        }
    }

    /// Item numbers of a command 2 frame.
    package enum Item {
        package static let token: UInt8 = 1
        package static let payload: UInt8 = 2
        package static let identifier: UInt8 = 3
        package static let expiry: UInt8 = 4
        package static let priority: UInt8 = 5
    }

    /// The frame of `notification`: command 0 (token, payload), command 1 (identifier,
    /// expiry, token, payload) or command 2 (a frame length, then its items in item order,
    /// the identifier, expiry and priority only when the notification had them). `nil` for
    /// any other command byte.
    package static func frame(_ notification: Notification) -> [UInt8]? {
        var bytes: [UInt8] = [notification.command]
        switch notification.command {
        case 0:
            append16(notification.token.count, to: &bytes)
            bytes += notification.token
            append16(notification.payload.count, to: &bytes)
            bytes += notification.payload
        case 1:
            append32(notification.identifier ?? 0, to: &bytes)
            append32(notification.expiry ?? 0, to: &bytes)
            append16(notification.token.count, to: &bytes)
            bytes += notification.token
            append16(notification.payload.count, to: &bytes)
            bytes += notification.payload
        case 2:
            var items: [UInt8] = []
            appendItem(Item.token, notification.token, to: &items)
            appendItem(Item.payload, notification.payload, to: &items)
            if let identifier = notification.identifier { appendItem(Item.identifier, bigEndian(identifier), to: &items) }
            if let expiry = notification.expiry { appendItem(Item.expiry, bigEndian(expiry), to: &items) }
            if let priority = notification.priority { appendItem(Item.priority, [priority], to: &items) }
            append32(UInt32(clamping: items.count), to: &bytes)
            bytes += items
        default:
            return nil
        }
        return bytes
    }

    /// The error-response packet: command 8, the status, the identifier it names.
    package static func errorResponse(status: UInt8, identifier: UInt32) -> [UInt8] {
        [8, status] + bigEndian(identifier)
    }

    /// One feedback tuple: the time in seconds since 1970, the token's length, the token.
    package static func feedbackTuple(seconds: UInt32, token: [UInt8]) -> [UInt8] {
        var bytes = bigEndian(seconds)
        append16(token.count, to: &bytes)
        return bytes + token
    }

    private static func appendItem(_ item: UInt8, _ value: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(item)
        append16(value.count, to: &bytes)
        bytes += value
    }

    /// A length as the protocol's 16 bits (a longer value is cut short by its writer first).
    private static func append16(_ value: Int, to bytes: inout [UInt8]) {
        let length = UInt16(clamping: value)
        bytes += [UInt8(length >> 8), UInt8(length & 0xff)]
    }

    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += bigEndian(value)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
