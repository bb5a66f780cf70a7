/// The status byte of the legacy binary gateway's 6-byte error-response packet (command 8).
public enum LegacyStatus: UInt8, CaseIterable, Sendable, Hashable, Codable {
    case noErrors = 0
    case processingError = 1
    case missingDeviceToken = 2
    case missingTopic = 3
    case missingPayload = 4
    case invalidTokenSize = 5
    case invalidTopicSize = 6
    case invalidPayloadSize = 7
    case invalidToken = 8
    /// The server is closing; the identifier is that of the last notification accepted.
    case shutdown = 10
    /// Only in Apple's 2018 table; TN2265 describes a silent close instead (configurable).
    case protocolError = 128
    case unknown = 255
}
