/// The status byte of the legacy binary gateway's 6-byte error-response packet (command 8).
package enum LegacyStatus: UInt8, CaseIterable, Sendable, Hashable, Codable {
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

extension LegacyStatus {
    /// What the status means, as Apple's table for the binary provider API names it.
    package var meaning: String {
        switch self {
        case .noErrors: "No errors encountered."
        case .processingError: "Processing error."
        case .missingDeviceToken: "Missing device token."
        case .missingTopic: "Missing topic."
        case .missingPayload: "Missing payload."
        case .invalidTokenSize: "Invalid token size: the device token item is not of a length the gateway accepts."
        case .invalidTopicSize: "Invalid topic size."
        case .invalidPayloadSize: "Invalid payload size: the payload is larger than the gateway accepts."
        case .invalidToken: "Invalid token: unknown to APNs, no longer valid, or issued for the other environment (sandbox versus production)."
        case .shutdown: "Shutdown: the server is closing the connection; the identifier is that of the last notification it accepted, and everything sent after it must be sent again."
        case .protocolError: "Protocol error: the bytes could not be parsed as a frame."
        case .unknown: "None (unknown): the frame was refused for a reason the table does not name."
        }
    }
}
