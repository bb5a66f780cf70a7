import MockAPNsCore
import MockAPNsJournal

extension AppliedFault {
    /// Whether the fault ends the connection (a provider then has to reconnect).
    var dropsConnection: Bool {
        switch self {
        case .closeConnection, .resetConnection, .sendGarbage, .closeAfterBytes, .shutdown: true
        case .goAway, .resetStream, .stall, .lowerMaxConcurrentStreams: false
        }
    }
}
