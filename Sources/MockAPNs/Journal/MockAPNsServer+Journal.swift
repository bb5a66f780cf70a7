import MockAPNsCore
import MockAPNsJournal

extension MockAPNsServer {
    /// Everything the server saw and did: connections, TLS, frames, notifications with their
    /// verdicts, faults, feedback, diagnoses. Query it, or wait on it.
    public var journal: Journal { observation.journal }

    /// The notifications recorded so far that match `filter`, oldest first.
    public func notifications(matching filter: NotificationFilter = .all) -> [NotificationRecord] {
        journal.notifications(matching: filter)
    }

    /// Waits until `count` notifications matching `filter` have been recorded (earlier ones
    /// count too) and returns them; returns as soon as the `count`-th arrives. After
    /// `timeout`, throws ``NotificationWaitTimeout``: the matches found, and the near misses,
    /// the notifications that came closest, each with the conditions it failed.
    ///
    /// ```swift
    /// let pushes = try await server.waitForNotifications(count: 2, matching: NotificationFilter(deviceToken: token))
    /// XCTAssertEqual(pushes.map(\.status), [200, 200])
    /// ```
    public func waitForNotifications(
        count: Int, matching filter: NotificationFilter = .all, timeout: Duration = .seconds(10)
    ) async throws(NotificationWaitTimeout) -> [NotificationRecord] {
        try await journal.waitForNotifications(count: count, matching: filter, timeout: timeout)
    }

    /// Records a fault a scenario injected, so the journal shows it beside the frames it broke.
    package func recordFault(connection: UInt64?, stream: Int32?, description: String) {
        journal.recordFault(connection: connection, stream: stream, description: description)
    }
}
