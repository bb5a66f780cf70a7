/// The decision core for broadcast sends on the provider API (`POST
/// /4/broadcasts/apps/<bundleID>`, docs/broadcast-protocol.md section 2): one request in, the
/// verdict APNs gives and the facts the journal keeps out.
///
/// ## Decision order (Apple documents none; the first failure wins)
///
/// | step | check | reason |
/// |---|---|---|
/// | 1 | a header name appears twice | `DuplicateHeaders` |
/// | 2 | `apns-id` and `apns-request-id`, if present, are UUIDs | `BadMessageId` |
/// | 3 | `:method` is `POST` | `MethodNotAllowed` |
/// | 4 | `:path` is `/4/broadcasts/apps/<bundleID>` | `BadPath` |
/// | 5 | `apns-expiration` is decimal epoch seconds | `BadExpirationDate` |
/// | 6 | `apns-priority` is one the options allow (5, 10) | `BadPriority` |
/// | 7 | `apns-push-type` is present and `liveactivity` | `MissingPushType`, `InvalidPushType` |
/// | 8 | `apns-topic`, if present, is well-formed and `<bundleID>.push-type.liveactivity` | `BadTopic`, `validation.missingTopicSuffixReason` |
/// | 9 | `apns-collapse-id` at most 64 bytes | `BadCollapseId` |
/// | 10 | `apns-channel-id` present and well-formed | `MissingChannelId`, `BadChannelId` |
/// | 11 | authentication, environment, the bundle id covered | the provider API's 403 reasons, `validation.topicNotAllowedReason` |
/// | 12 | broadcast enabled for the bundle id | `FeatureNotEnabled` |
/// | 13 | the channel exists for this bundle id here | `ChannelNotRegistered` |
/// | 14 | a *No Messages Stored* channel takes only `apns-expiration: 0` | `BadExpirationDate` |
/// | 15 | the payload: empty, size (`broadcast.payloadLimit`), shape | `PayloadEmpty`, `PayloadTooLarge`, `validation.nonObjectPayload` |
public struct BroadcastDecider: Sendable {
    /// The path every broadcast goes to, before the bundle id.
    public static let pathPrefix = "/4/broadcasts/apps/"

    public let options: BroadcastOptions
    public let validation: ValidationOptions
    public let registry: ChannelRegistry
    private let apnsIDs: UUIDGenerator
    private let lowercaseIDs = UUIDGenerator(letterCase: .lowercase)

    public init(options: BroadcastOptions = .default, validation: ValidationOptions = .default, registry: ChannelRegistry) {
        self.options = options
        self.validation = validation
        self.registry = registry
        self.apnsIDs = UUIDGenerator(letterCase: validation.generatedAPNsIDCase)
    }

    /// Whether a `:path` is a broadcast's (the provider API routes on this).
    public static func isBroadcastPath(_ path: String) -> Bool {
        path.hasPrefix(pathPrefix)
    }

    /// The `apns-request-id` a response to these headers carries: the request's when it sent
    /// a UUID, otherwise a new lowercase one.
    public func responseRequestID(for headers: [HTTPHeader]) -> String {
        if let sent = headers.first(where: { $0.name == "apns-request-id" })?.value,
           UUIDSyntax.isCanonical(sent, allowsUppercase: true) {
            return sent
        }
        return lowercaseIDs.next()
    }

    /// The record of a broadcast as far as its headers and path say, without judging it: for
    /// a request a scenario answered before the core was consulted.
    public func describe(_ request: HTTP2PushRequest, requestID: String, authentication: AuthenticationResult) -> BroadcastRecord {
        let fields = BroadcastHeaders(request.headers)
        var bundleID: String?
        if let path = fields.path, Self.isBroadcastPath(path) {
            let segment = path.dropFirst(Self.pathPrefix.count)
            if !segment.isEmpty { bundleID = String(segment) }
        }
        return BroadcastRecord(
            bundleID: bundleID, channelID: fields.channelID, topic: fields.topic, pushType: fields.pushType,
            requestAPNsID: fields.apnsID, requestID: requestID, priority: fields.priority, expiration: fields.expiration,
            payload: request.body, authentication: JournalAuthentication(authentication), answer: .nothing()
        )
    }

    /// Decides one broadcast. `requestID` is the `apns-request-id` the answer carries.
    public func decide(_ request: HTTP2PushRequest, requestID: String, context: DecisionContext) -> BroadcastDecision {
        let fields = BroadcastHeaders(request.headers)
        var bundleID: String?
        var storagePolicy: MessageStoragePolicy?
        let apnsIDIsValid = fields.apnsID.map { UUIDSyntax.isCanonical($0, allowsUppercase: validation.acceptsUppercaseAPNsIDs) } ?? true
        let apnsID = (apnsIDIsValid ? fields.apnsID : nil) ?? apnsIDs.next()
        func record(_ verdict: Verdict) -> BroadcastDecision {
            BroadcastDecision(verdict: verdict, record: BroadcastRecord(
                bundleID: bundleID, channelID: fields.channelID, topic: fields.topic, pushType: fields.pushType,
                requestAPNsID: fields.apnsID, requestID: requestID, priority: fields.priority, expiration: fields.expiration,
                storagePolicy: storagePolicy, payload: request.body,
                authentication: JournalAuthentication(context.authentication), answer: .http2(verdict)
            ))
        }
        func refuse(_ reason: Reason) -> BroadcastDecision {
            record(.rejected(reason: reason, apnsID: apnsID, timestamp: nil))
        }

        if fields.hasDuplicate { return refuse(.duplicateHeaders) }
        if !apnsIDIsValid { return refuse(.badMessageId) }
        if let sent = fields.requestID, !UUIDSyntax.isCanonical(sent, allowsUppercase: true) { return refuse(.badMessageId) }
        if fields.method != "POST" { return refuse(.methodNotAllowed) }
        guard let path = fields.path, Self.isBroadcastPath(path) else { return refuse(.badPath) }
        let pathBundleID = String(path.dropFirst(Self.pathPrefix.count))
        guard !pathBundleID.isEmpty, !pathBundleID.contains("/"), !pathBundleID.contains("?") else { return refuse(.badPath) }
        bundleID = pathBundleID

        var expiration: Int64?
        if let text = fields.expiration {
            guard let value = HeaderValueSyntax.expiration(text) else { return refuse(.badExpirationDate) }
            expiration = value
        }
        if let text = fields.priority {
            guard let priority = HeaderValueSyntax.priority(text), options.allowedPriorities.contains(priority) else {
                return refuse(.badPriority)
            }
        }
        guard let pushType = fields.pushType else { return refuse(.missingPushType) }
        guard pushType == PushType.liveactivity.rawValue else { return refuse(.invalidPushType) }
        if let topic = fields.topic {
            guard case .wellFormed = TopicRules.classify(topic) else { return refuse(.badTopic) }
            guard topic == pathBundleID + (PushType.liveactivity.topicSuffix ?? "") else {
                return refuse(validation.missingTopicSuffixReason)
            }
        }
        if let collapseID = fields.collapseID, collapseID.utf8.count > HTTP2RequestValidator.maximumCollapseIDLength {
            return refuse(.badCollapseId)
        }
        guard let channelID = fields.channelID else { return refuse(.missingChannelId) }
        guard ChannelID.isWellFormed(channelID, maximumLength: options.maximumChannelIDLength) else {
            return refuse(.badChannelId)
        }

        if let refusal = BroadcastCredentials.refusal(
            context.authentication, bundleID: pathBundleID, environment: context.environment,
            notCovered: validation.topicNotAllowedReason
        ) {
            return refuse(refusal)
        }
        if options.disabledBundleIDs.contains(pathBundleID) { return refuse(.featureNotEnabled) }
        guard let channel = registry.channel(id: channelID, bundleID: pathBundleID, environment: context.environment) else {
            return refuse(.channelNotRegistered)
        }
        storagePolicy = channel.storagePolicy
        if channel.storagePolicy == .noMessageStored, let expiration, expiration != 0 {
            return refuse(.badExpirationDate)
        }

        if request.body.isEmpty { return refuse(.payloadEmpty) }
        if request.body.count > options.payloadLimit { return refuse(.payloadTooLarge) }
        if case .reject(let reason) = validation.nonObjectPayload, !JSONScanner.isObject(request.body) {
            return refuse(reason)
        }

        let uniqueID = context.environment == .sandbox ? lowercaseIDs.next() : nil
        return record(.accepted(apnsID: apnsID, uniqueID: uniqueID))
    }
}

/// What the broadcast core concluded: its verdict, and the record of the request, whose
/// answer the protocol mouth replaces with what it actually wrote. The record's fields read
/// through (`decision.bundleID`, `decision.status`).
@dynamicMemberLookup
public struct BroadcastDecision: Sendable, Equatable {
    public var verdict: Verdict
    public var record: BroadcastRecord

    public subscript<Value>(dynamicMember field: KeyPath<BroadcastRecord, Value>) -> Value {
        record[keyPath: field]
    }
}

/// The headers a broadcast reads: the first of each, and whether any name was repeated.
struct BroadcastHeaders {
    var method: String?
    var path: String?
    var channelID: String?
    var requestID: String?
    var apnsID: String?
    var topic: String?
    var pushType: String?
    var priority: String?
    var expiration: String?
    var collapseID: String?
    var hasDuplicate = false

    init(_ headers: [HTTPHeader]) {
        var seen = Set<String>()
        for header in headers {
            if !seen.insert(header.name).inserted { hasDuplicate = true; continue }
            switch header.name {
            case ":method": method = header.value
            case ":path": path = header.value
            case "apns-channel-id": channelID = header.value
            case "apns-request-id": requestID = header.value
            case "apns-id": apnsID = header.value
            case "apns-topic": topic = header.value
            case "apns-push-type": pushType = header.value
            case "apns-priority": priority = header.value
            case "apns-expiration": expiration = header.value
            case "apns-collapse-id": collapseID = header.value
            default: break
            }
        }
    }
}
