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

/// One HTTP/2 frame. The stream is the event's `streamID`.
public struct JournalHTTP2Frame: Sendable, Equatable {
    /// `inbound` (client to server) or `outbound`.
    public var direction: FrameDirection
    /// The RFC name: `HEADERS`, `SETTINGS`, `GOAWAY`...
    public var type: String
    public var flags: UInt8
    /// The payload length from the frame header.
    public var length: Int
    /// What the frame says beyond its header.
    public var details: Details

    public enum FrameDirection: String, CaseIterable, Sendable, Hashable {
        case inbound, outbound
    }

    /// The decoded payload of the frame types that have one worth reading.
    public enum Details: Sendable, Equatable {
        case empty
        /// HEADERS: the decoded list (`authorization` redacted when asked).
        case headers([HTTPHeader])
        /// SETTINGS: each parameter by RFC name (`MAX_CONCURRENT_STREAMS`) and value.
        case settings([Setting])
        case rstStream(errorCode: UInt32)
        case goaway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8])
        case windowUpdate(increment: Int32)
        case ping(opaqueData: [UInt8])
    }

    /// One SETTINGS parameter.
    public struct Setting: Sendable, Equatable {
        public var name: String
        public var value: UInt32

        public init(name: String, value: UInt32) {
            self.name = name
            self.value = value
        }
    }

    public init(direction: FrameDirection, type: String, flags: UInt8, length: Int, details: Details) {
        self.direction = direction
        self.type = type
        self.flags = flags
        self.length = length
        self.details = details
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
