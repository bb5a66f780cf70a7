import MockAPNsCore

/// What one legacy gateway connection did, recorded when it closes: what a test asserts on
/// after driving a provider against the gateway.
package struct LegacyConnectionReport: Sendable, Equatable {
    /// The client's address, as `[IPv4]127.0.0.1/127.0.0.1:50321`.
    package var peer: String?
    /// The negotiated TLS version ("TLSv1.2"); `nil` when the handshake never completed.
    package var tlsVersion: String?
    /// The client certificate's subject, when it could be read.
    package var certificateSubject: String?
    /// Notifications the decision core accepted.
    package var accepted = 0
    /// Notifications (and unreadable frames) discarded after the connection's failure or
    /// shutdown, unexamined, as Apple discarded them.
    package var dropped = 0
    /// The identifier of the last accepted notification that carried one.
    package var lastAcceptedIdentifier: UInt32?
    /// The first failure, in plain words (`nil` when nothing failed).
    package var failure: String?
    /// The 6-byte packet sent before closing: the failure's status, or status 10 on shutdown.
    /// `nil` when the connection closed without one.
    package var errorResponse: LegacyErrorResponse?
    /// Whether the server closed the connection without a word: a command-0 failure, an
    /// unparseable frame under the silent-close policy, or a refused certificate.
    package var closedSilently = false
    /// Bytes received after the failure and thrown away before closing.
    package var drainedBytes = 0
    /// The mistakes spotted on this connection, in order.
    package var diagnoses: [LegacyDiagnosis] = []

    package init() {}

    /// Frames that held no notification at all: bytes the codec could not parse (the tail
    /// of a mis-framed payload, an unknown command), the failure's frame included.
    package var unparseableFrames = 0

    /// How many notifications the client sent on the connection, as far as the server read.
    /// Unparseable bytes are not counted: when a mis-framed payload's tail is read as a
    /// second "frame", the client still sent one notification.
    package var notificationsReceived: Int {
        max(0, accepted + dropped + (failure == nil ? 0 : 1) - unparseableFrames)
    }
}

/// What the legacy gateway has seen since the server started.
package struct LegacyGatewayActivity: Sendable, Equatable {
    /// Closed gateway connections, oldest first (at most `LegacyActivityLog.capacity`).
    package var connections: [LegacyConnectionReport]
    /// Diagnoses about the client's behaviour across connections (connection churn).
    package var diagnoses: [LegacyDiagnosis]

    package init(connections: [LegacyConnectionReport], diagnoses: [LegacyDiagnosis]) {
        self.connections = connections
        self.diagnoses = diagnoses
    }
}
