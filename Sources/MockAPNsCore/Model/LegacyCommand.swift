/// The command byte that opens each notification on the legacy gateway.
package enum LegacyCommand: UInt8, CaseIterable, Sendable, Hashable, Codable {
    /// Command 0: token and payload only. No identifier, so errors close without a packet.
    case simple = 0
    /// Command 1: adds a 4-byte identifier and a 4-byte expiry.
    case enhanced = 1
    /// Command 2: a length-prefixed list of items (token, payload, identifier, expiry, priority).
    case frame = 2
}
