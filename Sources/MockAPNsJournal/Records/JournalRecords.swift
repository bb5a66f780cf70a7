import MockAPNsCore
/// An established TLS session, as the journal keeps it.
package struct JournalTLSSession: Sendable, Equatable {
    package var version: String
    package var cipher: String
    /// The SNI host name the client sent.
    package var serverName: String?
    /// The ALPN protocols the client offered, in its order (`nil`: no ALPN extension).
    package var offeredALPN: [String]?
    /// The protocol chosen through ALPN.
    package var negotiatedALPN: String?
    /// The client certificate's subject, when one was presented and could be read.
    package var clientCertificateSubject: String?
    /// The client certificate's topics.
    package var topics: [String]
    /// The client certificate's environments (`sandbox`, `production`).
    package var environments: [String]
    /// Whether the client certificate chains to the trusted roots (`nil`: none presented).
    package var certificateTrusted: Bool?
    /// Whether an earlier session was resumed.
    package var resumed: Bool

    package init(
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
package struct JournalTLSFailure: Sendable, Equatable {
    package var reason: String
    package var alertSent: String?
    package var alertReceived: String?
    package var serverName: String?
    package var offeredALPN: [String]?
    package var offeredVersions: [String]
    package var offeredCipherSuites: [String]

    package init(
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
package struct JournalLegacyFrame: Sendable, Equatable {
    /// The command byte (0, 1, 2, or whatever unknown byte arrived).
    package var command: UInt8
    package var identifier: UInt32?
    /// The device token as lowercase hex, when the frame was read that far.
    package var deviceToken: String?
    package var payloadLength: Int?
    /// The frame's size on the wire, when known.
    package var frameLength: Int?
    /// Why the codec refused the frame (`nil`: it parsed).
    package var problem: String?
    /// The frame's first bytes, kept only when it failed to parse.
    package var rawBytes: [UInt8]?
    /// Whether it arrived after the connection's failure or shutdown and was discarded unread.
    package var dropped: Bool

    package init(
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
