import MockAPNsCore
import MockAPNsJournal

extension NotificationRecord {
    /// Whether these are legacy bytes that start no frame (a command byte other than 0, 1 or
    /// 2), such as the tail of a payload whose length field counted characters: they hold no
    /// notification, as the server's own churn diagnosis counts them.
    var startsNoLegacyFrame: Bool {
        guard transport == .legacy, let command = legacyCommand else { return false }
        return LegacyCommand(rawValue: command) == nil
    }
}
