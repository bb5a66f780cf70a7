import MockAPNsCore

// The records of broadcast sends and channel management requests: the journal's vocabulary,
// filled in by the broadcast module's deciders.

/// One broadcast send (`POST /4/broadcasts/apps/<bundleID>`) as the journal keeps it: the
/// request, how it authenticated, and the answer as written.
package struct BroadcastRecord: Sendable, Equatable {
    /// From the path; `nil` when the path was not a broadcast's.
    package var bundleID: String?
    /// `apns-channel-id` as sent.
    package var channelID: String?
    package var topic: String?
    package var pushType: String?
    /// `apns-id` as sent.
    package var requestAPNsID: String?
    /// `apns-request-id` as answered (the request's, or generated).
    package var requestID: String
    /// `apns-priority` and `apns-expiration` as sent.
    package var priority: String?
    package var expiration: String?
    /// The channel's storage policy, when the channel exists.
    package var storagePolicy: MessageStoragePolicy?
    /// The payload's first bytes (at most `RecordedPayload.limit`).
    package var payload: [UInt8]
    package var payloadLength: Int
    package var authentication: JournalAuthentication
    /// What the client was sent, as written.
    package var answer: SentAnswer

    /// Whether the answer said it was accepted.
    package var accepted: Bool { answer.accepted }
    /// The Apple reason the answer named.
    package var reason: Reason? { answer.reason }
    /// The HTTP status written; `nil` when none was (a fault).
    package var status: Int? { answer.status }

    package init(
        bundleID: String? = nil, channelID: String? = nil, topic: String? = nil, pushType: String? = nil,
        requestAPNsID: String? = nil, requestID: String, priority: String? = nil, expiration: String? = nil,
        storagePolicy: MessageStoragePolicy? = nil, payload: [UInt8], authentication: JournalAuthentication,
        answer: SentAnswer
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
        self.payload = RecordedPayload.kept(payload)
        self.authentication = authentication
        self.answer = answer
    }

    /// The payload as text, when its kept bytes are valid UTF-8.
    package var payloadText: String? {
        String(validating: payload, as: UTF8.self)
    }
}

/// One channel management request (create, read, read all, delete) as the journal keeps it.
package struct ChannelOperationRecord: Sendable, Equatable {
    /// What the core made of the request: the operation, the channel, the response it wrote.
    package var outcome: ChannelOperationOutcome
    package var authentication: JournalAuthentication
    /// What the client was sent: the core's response, unless a scenario rule answered instead.
    package var answer: SentAnswer

    /// A record of a request answered as the core decided (`answer` `nil`), or otherwise.
    package init(outcome: ChannelOperationOutcome, authentication: JournalAuthentication, answer: SentAnswer? = nil) {
        self.outcome = outcome
        self.authentication = authentication
        self.answer = answer ?? .http2(outcome.response, scripted: false)
    }

    package var operation: ChannelOperation? { outcome.operation }
    package var channelID: String? { outcome.channelID }
    /// The HTTP status written; `nil` when none was (a fault).
    package var status: Int? { answer.status }
    /// The Apple reason the answer named.
    package var reason: Reason? { answer.reason }
    /// Whether the core's own response is the one that was written (so its body is the one
    /// the client read, and its change to the registry was made).
    package var answeredByCore: Bool { answer.rule == nil && answer.fault == nil && answer.status == outcome.response.status }
}

/// What one channel management request did and the answer the core made for it, as the
/// journal keeps it (the broadcast module's decider fills it in).
package struct ChannelOperationOutcome: Sendable, Equatable {
    /// `nil` when the path or method named no operation.
    package var operation: ChannelOperation?
    package var bundleID: String?
    /// The channel concerned: the created one, or the `apns-channel-id` the request sent.
    package var channelID: String?
    /// `apns-request-id` as answered (echoed, or generated when absent or malformed).
    package var requestID: String
    /// The channel's storage policy, when the request concerned one that exists or was made.
    package var storagePolicy: MessageStoragePolicy?
    /// Why it was refused (`nil`: it succeeded).
    package var reason: Reason?
    /// The response, byte for byte.
    package var response: ProviderAnswer = ProviderAnswer(status: 0, headers: [], body: nil)

    package init(operation: ChannelOperation?, bundleID: String?, channelID: String?, requestID: String) {
        self.operation = operation
        self.bundleID = bundleID
        self.channelID = channelID
        self.requestID = requestID
    }
}
