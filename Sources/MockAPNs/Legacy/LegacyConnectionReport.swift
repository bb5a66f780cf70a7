import MockAPNsCore
import MockAPNsLegacy

/// What one legacy gateway connection did, recorded when it closes: what a test asserts on
/// after driving a provider against the gateway.
public struct LegacyConnectionReport: Sendable, Equatable {
    /// The client's address, as `[IPv4]127.0.0.1/127.0.0.1:50321`.
    public var peer: String?
    /// The negotiated TLS version ("TLSv1.2"); `nil` when the handshake never completed.
    public var tlsVersion: String?
    /// The client certificate's subject, when it could be read.
    public var certificateSubject: String?
    /// Notifications the decision core accepted.
    public var accepted = 0
    /// Notifications (and unreadable frames) discarded after the connection's failure or
    /// shutdown, unexamined, as Apple discarded them.
    public var dropped = 0
    /// The identifier of the last accepted notification that carried one.
    public var lastAcceptedIdentifier: UInt32?
    /// The first failure, in plain words (`nil` when nothing failed).
    public var failure: String?
    /// The 6-byte packet sent before closing: the failure's status, or status 10 on shutdown.
    /// `nil` when the connection closed without one.
    public var errorResponse: LegacyErrorResponse?
    /// Whether the server closed the connection without a word: a command-0 failure, an
    /// unparseable frame under the silent-close policy, or a refused certificate.
    public var closedSilently = false
    /// Bytes received after the failure and thrown away before closing.
    public var drainedBytes = 0
    /// The mistakes spotted on this connection, in order.
    public var diagnoses: [LegacyDiagnosis] = []

    public init() {}

    /// Frames that held no notification at all: bytes the codec could not parse (the tail
    /// of a mis-framed payload, an unknown command), the failure's frame included.
    public var unparseableFrames = 0

    /// How many notifications the client sent on the connection, as far as the server read.
    /// Unparseable bytes are not counted: when a mis-framed payload's tail is read as a
    /// second "frame", the client still sent one notification.
    public var notificationsReceived: Int {
        max(0, accepted + dropped + (failure == nil ? 0 : 1) - unparseableFrames)
    }
}

/// What the legacy gateway has seen since the server started.
public struct LegacyGatewayActivity: Sendable, Equatable {
    /// Closed gateway connections, oldest first (at most `LegacyActivityLog.capacity`).
    public var connections: [LegacyConnectionReport]
    /// Diagnoses about the client's behaviour across connections (connection churn).
    public var diagnoses: [LegacyDiagnosis]
}
