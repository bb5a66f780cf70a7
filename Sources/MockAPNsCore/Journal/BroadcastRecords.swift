/// One broadcast send (`POST /4/broadcasts/apps/<bundleID>`) as the journal keeps it: the
/// request, how it authenticated, the verdict and the answer.
public struct BroadcastRecord: Sendable, Equatable {
    /// From the path; `nil` when the path was not a broadcast's.
    public var bundleID: String?
    /// `apns-channel-id` as sent.
    public var channelID: String?
    public var topic: String?
    public var pushType: String?
    /// `apns-id` as sent.
    public var requestAPNsID: String?
    /// `apns-request-id` as answered (the request's, or generated).
    public var requestID: String
    /// `apns-priority` and `apns-expiration` as sent.
    public var priority: String?
    public var expiration: String?
    /// The channel's storage policy, when the channel exists.
    public var storagePolicy: MessageStoragePolicy?
    /// The payload's first bytes (at most `NotificationRecord.payloadLimit`).
    public var payload: [UInt8]
    public var payloadLength: Int
    public var authentication: JournalAuthentication
    /// The core's verdict.
    public var verdict: Verdict

    /// Whether APNs accepted it.
    public var accepted: Bool {
        if case .accepted = verdict { return true }
        return false
    }
    /// Why it was refused.
    public var reason: Reason? { verdict.reason }
    /// The HTTP status answered.
    public var status: Int { verdict.reason?.httpStatus ?? 200 }

    public init(
        bundleID: String? = nil, channelID: String? = nil, topic: String? = nil, pushType: String? = nil,
        requestAPNsID: String? = nil, requestID: String, priority: String? = nil, expiration: String? = nil,
        storagePolicy: MessageStoragePolicy? = nil, payload: [UInt8], authentication: JournalAuthentication,
        verdict: Verdict
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.topic = topic
        self.pushType = pushType
        self.requestAPNsID = requestAPNsID
        self.requestID = requestID
        self.priority = priority
        self.expiration = expiration
        self.storagePolicy = storagePolicy
        self.payloadLength = payload.count
        self.payload = NotificationRecord.kept(payload)
        self.authentication = authentication
        self.verdict = verdict
    }

    /// The payload as text, when its kept bytes are valid UTF-8.
    public var payloadText: String? {
        String(validating: payload, as: UTF8.self)
    }
}

/// One channel management request (create, read, read all, delete) as the journal keeps it.
public struct ChannelOperationRecord: Sendable, Equatable {
    /// What the request did and answered.
    public var outcome: ChannelManagementOutcome
    public var authentication: JournalAuthentication

    public init(outcome: ChannelManagementOutcome, authentication: JournalAuthentication) {
        self.outcome = outcome
        self.authentication = authentication
    }

    public var operation: ChannelOperation? { outcome.operation }
    public var channelID: String? { outcome.channelID }
    public var status: Int { outcome.response.status }
}
