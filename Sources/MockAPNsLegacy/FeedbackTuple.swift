import MockAPNsCore
/// One entry of the legacy feedback service: a device token that stopped accepting
/// notifications, and when. On the wire: `time (UInt32 BE, seconds since 1970) · token length
/// (UInt16 BE) · token`.
package struct FeedbackTuple: Sendable, Hashable {
    /// The wire size of a tuple without its token.
    package static let headerLength = 4 + 2

    /// Seconds since 1970 (UTC) at which APNs found the app gone from the device.
    package var timestamp: UInt32
    /// The device token, binary.
    package var token: [UInt8]

    /// `nil` if the tuple cannot be written: a time outside what 32 bits of seconds can
    /// say (1970 to 2106), or a token longer than 65,535 bytes.
    package init?(secondsSince1970: Int64, token: [UInt8]) {
        guard let timestamp = UInt32(exactly: secondsSince1970), token.count <= Int(UInt16.max) else { return nil }
        self.timestamp = timestamp
        self.token = token
    }

    /// The tuple as the feedback service sends it.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Appends the tuple to `bytes`, so a whole feedback stream is built in one buffer.
    package func encode(into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + Self.headerLength + token.count)
        legacyAppendBigEndian(timestamp, to: &bytes)
        legacyAppendBigEndian(UInt16(truncatingIfNeeded: token.count), to: &bytes)
        bytes += token
    }
}

/// Reads feedback tuples the way a client does: from whatever bytes each read returns,
/// until the server closes.
package struct FeedbackTupleDecoder: Sendable {
    /// The stream ended in the middle of a tuple.
    package struct TruncatedStream: Error, Sendable, Equatable {
        /// How many bytes of the unfinished tuple were received.
        package var leftoverBytes: Int
    }

    private var pending: [UInt8] = []

    package init() {}

    /// Returns every tuple completed by `bytes`; an unfinished one waits for the next call.
    /// Holds at most one tuple (at most 65,541 bytes).
    package mutating func feed(_ bytes: [UInt8]) -> [FeedbackTuple] {
        pending += bytes
        var tuples: [FeedbackTuple] = []
        let used = pending.withUnsafeBytes { raw -> Int in
            var cursor = LegacyByteCursor(raw)
            var used = 0
            while let timestamp = cursor.readUInt32(), let length = cursor.readUInt16(),
                  let token = cursor.readBytes(Int(length)) {
                tuples.append(FeedbackTuple(timestamp: timestamp, token: [UInt8](token)))
                used = cursor.offset
            }
            return used
        }
        pending.removeFirst(used)
        return tuples
    }

    /// Call at end of stream: fails if an unfinished tuple is left.
    package func finish() throws(TruncatedStream) {
        if !pending.isEmpty { throw TruncatedStream(leftoverBytes: pending.count) }
    }

    /// Decodes a complete feedback stream.
    package static func decodeAll(_ bytes: [UInt8]) throws(TruncatedStream) -> [FeedbackTuple] {
        var decoder = FeedbackTupleDecoder()
        let tuples = decoder.feed(bytes)
        try decoder.finish()
        return tuples
    }
}

extension FeedbackTuple {
    /// For decoding, where both fields come straight from the wire.
    fileprivate init(timestamp: UInt32, token: [UInt8]) {
        self.timestamp = timestamp
        self.token = token
    }
}
