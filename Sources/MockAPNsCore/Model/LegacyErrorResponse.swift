/// The 6-byte packet the legacy gateway writes before closing: `08 · status · identifier`.
package struct LegacyErrorResponse: Sendable, Hashable {
    /// The packet's command byte.
    package static let command: UInt8 = 8
    /// The packet's size on the wire.
    package static let length = 6

    package var status: LegacyStatus
    /// The failed notification's identifier; for status 10 (shutdown), the last one accepted.
    /// Written big-endian, so the four bytes go back exactly as the client sent them.
    package var identifier: UInt32

    package init(status: LegacyStatus, identifier: UInt32) {
        self.status = status
        self.identifier = identifier
    }

    /// The packet as sent.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = [Self.command, status.rawValue]
        bytes.reserveCapacity(Self.length)
        legacyAppendBigEndian(identifier, to: &bytes)
        return bytes
    }

    /// Reads a packet as a client would. `nil` unless `bytes` is exactly 6 bytes with command
    /// 8 and a known status.
    package init?(bytes: [UInt8]) {
        guard bytes.count == Self.length, bytes[0] == Self.command,
              let status = LegacyStatus(rawValue: bytes[1]) else { return nil }
        let identifier = bytes.withUnsafeBytes { raw -> UInt32? in
            var cursor = LegacyByteCursor(raw, offset: 2)
            return cursor.readUInt32()
        }
        guard let identifier else { return nil }
        self.init(status: status, identifier: identifier)
    }
}
