import MockAPNsWire
import MockAPNsCore
import MockAPNsJSON
/// The item ids of a command-2 frame.
package enum LegacyItemID: UInt8, CaseIterable, Sendable, Hashable, Codable {
    case deviceToken = 1
    case payload = 2
    case identifier = 3
    case expiration = 4
    case priority = 5
}

/// One notification exactly as a legacy frame carried it, after the frame passed the codec's
/// checks (sizes, items). The decision core then judges its `pushRequest()`.
package struct LegacyNotification: Sendable, Equatable {
    /// The command that framed it.
    package var command: LegacyCommand
    /// The identifier Apple echoes in an error packet. `nil` for command 0, and for a command-2
    /// frame without item 3 (an error packet then carries 0).
    package var identifier: UInt32?
    /// Expiry in seconds since 1970, `0` meaning "don't store". `nil` for command 0 and for a
    /// command-2 frame without item 4.
    package var expiry: UInt32?
    /// The device token as lowercase hex, encoded once, when the frame is parsed: the form the
    /// decision core, the registry and the journal read. The bytes themselves are not kept, so
    /// a notification costs no allocation for them.
    package var deviceToken: String
    /// The payload bytes (JSON, if the provider got it right), in the connection's arena as
    /// the parser copied them (`ByteArena`), so the decision and the record share them.
    package var payload: SharedBytes
    /// The priority item (command 2 only, 5 or 10); `nil` when absent, meaning 10.
    package var priority: Priority?
    /// The frame's size on the wire, command byte included.
    package var frameLength: Int

    package init(
        command: LegacyCommand,
        identifier: UInt32? = nil,
        expiry: UInt32? = nil,
        token: [UInt8],
        payload: [UInt8],
        priority: Priority? = nil,
        frameLength: Int? = nil
    ) {
        self.init(
            command: command, identifier: identifier, expiry: expiry, deviceToken: token.withUnsafeBytes(lowercaseHex),
            payload: SharedBytes(payload), priority: priority, frameLength: frameLength
        )
    }

    /// A notification whose token is already hex (`deviceToken`), as the parser makes it.
    package init(
        command: LegacyCommand,
        identifier: UInt32? = nil,
        expiry: UInt32? = nil,
        deviceToken: String,
        payload: SharedBytes,
        priority: Priority? = nil,
        frameLength: Int? = nil
    ) {
        self.command = command
        self.identifier = identifier
        self.expiry = expiry
        self.deviceToken = deviceToken
        self.payload = payload
        self.priority = priority
        self.frameLength = 0
        self.frameLength = frameLength ?? encoded().count
    }

    /// The device token bytes, read back from `deviceToken` (for a refusal's record and
    /// message, and to encode the frame again).
    package var token: [UInt8] {
        HexDigits.bytes(hex: deviceToken) ?? []
    }

    /// The normalized request the decision core reads. Legacy frames carry no topic: the
    /// client certificate decides it.
    package func pushRequest() -> PushRequest {
        PushRequest(
            transport: .legacy,
            deviceToken: deviceToken,
            expiration: expiry.map(Int64.init),
            priority: priority,
            payload: payload,
            legacyIdentifier: identifier
        )
    }

    /// The notification as a client writes it: the frame layout of `command`, lengths
    /// big-endian, command-2 items in id order (1 to 5, optional ones only when present).
    /// Fields the command cannot carry are left out (command 0 has no identifier or expiry;
    /// commands 0 and 1 have no priority). Lengths above 65,535 are truncated, as a careless
    /// client would; the decoder rejects the result.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.count + payload.count + 45)
        bytes.append(command.rawValue)
        switch command {
        case .simple, .enhanced:
            if command == .enhanced {
                legacyAppendBigEndian(identifier ?? 0, to: &bytes)
                legacyAppendBigEndian(expiry ?? 0, to: &bytes)
            }
            legacyAppendBigEndian(UInt16(truncatingIfNeeded: token.count), to: &bytes)
            bytes += token
            legacyAppendBigEndian(UInt16(truncatingIfNeeded: payload.count), to: &bytes)
            bytes += payload
        case .frame:
            var items: [UInt8] = []
            func item(_ id: LegacyItemID, _ data: [UInt8]) {
                items.append(id.rawValue)
                legacyAppendBigEndian(UInt16(truncatingIfNeeded: data.count), to: &items)
                items += data
            }
            func bigEndian(_ value: UInt32) -> [UInt8] {
                var out: [UInt8] = []
                legacyAppendBigEndian(value, to: &out)
                return out
            }
            item(.deviceToken, token)
            item(.payload, payload.array)
            if let identifier { item(.identifier, bigEndian(identifier)) }
            if let expiry { item(.expiration, bigEndian(expiry)) }
            if let priority { item(.priority, [UInt8(truncatingIfNeeded: priority.rawValue)]) }
            legacyAppendBigEndian(UInt32(truncatingIfNeeded: items.count), to: &bytes)
            bytes += items
        }
        return bytes
    }
}
