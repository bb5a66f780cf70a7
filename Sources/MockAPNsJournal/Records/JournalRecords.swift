import MockAPNsCore
/// An established TLS session, as the journal keeps it.
public struct JournalTLSSession: Sendable, Equatable {
    public var version: String
    public var cipher: String
    /// The SNI host name the client sent.
    public var serverName: String?
    /// The ALPN protocols the client offered, in its order (`nil`: no ALPN extension).
    public var offeredALPN: [String]?
    /// The protocol chosen through ALPN.
    public var negotiatedALPN: String?
    /// The client certificate's subject, when one was presented and could be read.
    public var clientCertificateSubject: String?
    /// The client certificate's topics.
    public var topics: [String]
    /// The client certificate's environments (`sandbox`, `production`).
    public var environments: [String]
    /// Whether the client certificate chains to the trusted roots (`nil`: none presented).
    public var certificateTrusted: Bool?
    /// Whether an earlier session was resumed.
    public var resumed: Bool

    public init(
        version: String, cipher: String, serverName: String?, offeredALPN: [String]?,
        negotiatedALPN: String?, clientCertificateSubject: String?, topics: [String],
        environments: [String], certificateTrusted: Bool?, resumed: Bool
    ) {
        self.version = version
        self.cipher = cipher
        self.serverName = serverName
        self.offeredALPN = offeredALPN
        self.negotiatedALPN = negotiatedALPN
        self.clientCertificateSubject = clientCertificateSubject
        self.topics = topics
        self.environments = environments
        self.certificateTrusted = certificateTrusted
        self.resumed = resumed
    }
}

/// A failed TLS handshake: why, the alerts, and what the client offered.
public struct JournalTLSFailure: Sendable, Equatable {
    public var reason: String
    public var alertSent: String?
    public var alertReceived: String?
    public var serverName: String?
    public var offeredALPN: [String]?
    public var offeredVersions: [String]
    public var offeredCipherSuites: [String]

    public init(
        reason: String, alertSent: String?, alertReceived: String?, serverName: String?,
        offeredALPN: [String]?, offeredVersions: [String], offeredCipherSuites: [String]
    ) {
        self.reason = reason
        self.alertSent = alertSent
        self.alertReceived = alertReceived
        self.serverName = serverName
        self.offeredALPN = offeredALPN
        self.offeredVersions = offeredVersions
        self.offeredCipherSuites = offeredCipherSuites
    }
}

/// One frame read on the legacy binary gateway.
public struct JournalLegacyFrame: Sendable, Equatable {
    /// The command byte (0, 1, 2, or whatever unknown byte arrived).
    public var command: UInt8
    public var identifier: UInt32?
    /// The device token as lowercase hex, when the frame was read that far.
    public var deviceToken: String?
    public var payloadLength: Int?
    /// The frame's size on the wire, when known.
    public var frameLength: Int?
    /// Why the codec refused the frame (`nil`: it parsed).
    public var problem: String?
    /// The frame's first bytes, kept only when it failed to parse.
    public var rawBytes: [UInt8]?
    /// Whether it arrived after the connection's failure or shutdown and was discarded unread.
    public var dropped: Bool

    public init(
        command: UInt8, identifier: UInt32? = nil, deviceToken: String? = nil, payloadLength: Int? = nil,
        frameLength: Int? = nil, problem: String? = nil, rawBytes: [UInt8]? = nil, dropped: Bool = false
    ) {
        self.command = command
        self.identifier = identifier
        self.deviceToken = deviceToken
        self.payloadLength = payloadLength
        self.frameLength = frameLength
        self.problem = problem
        self.rawBytes = rawBytes
        self.dropped = dropped
    }
}
