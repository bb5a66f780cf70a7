import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
/// The decision core for broadcast sends on the provider API (`POST
/// /4/broadcasts/apps/<bundleID>`, docs/broadcast-protocol.md section 2): one request in, the
/// verdict APNs gives, the facts the journal keeps and what it should add out.
///
/// Apple documents the request in "Sending broadcast push notification requests to APNs"
/// (developer.apple.com/documentation/usernotifications/sending-broadcast-push-notification-requests-to-apns)
/// and its refusals in "Handling error responses from Apple Push Notification service"
/// (.../handling-error-responses-from-apns).
///
/// ## Decision order (the first failure wins)
///
/// Apple documents one step of it: authentication first, then the channel. The rest is
/// MockAPNs' order.
///
/// | step | check | reason |
/// |---|---|---|
/// | 1 | `:path` is `/4/broadcasts/apps/<bundleID>` | `BadPath` |
/// | 2 | `:method` is `POST` | `broadcast.wrongMethodReason` (`MethodNotAllowed`) |
/// | 3 | authentication and its environment | the provider API's 403 reasons |
/// | 4 | a header name appears twice | `DuplicateHeaders` |
/// | 5 | `apns-id` and `apns-request-id`, if present, are UUIDs | `BadMessageId` |
/// | 6 | the bundle id carries no push-type suffix | `TopicDisallowed` |
/// | 7 | the credentials cover the bundle id | `TopicMismatch` (403) |
/// | 8 | broadcast enabled for the bundle id | `FeatureNotEnabled` |
/// | 9 | `apns-push-type` present and the Live Activity type, any letter case | `MissingPushType`, `InvalidPushType` |
/// | 10 | `apns-topic`, if present: well-formed, no push-type suffix, this app | `BadTopic`, `TopicDisallowed`, `broadcast.topicForOtherApp` |
/// | 11 | `apns-expiration` decimal epoch seconds; `apns-priority` 10, 5 or 1 | `BadExpirationDate`, `BadPriority` |
/// | 12 | both present ("Required") | `broadcast.refusesMissingRequiredHeaders` |
/// | 13 | `apns-collapse-id` at most 64 bytes | `BadCollapseId` |
/// | 14 | `apns-channel-id` present and well-formed | `MissingChannelId`, `BadChannelId` |
/// | 15 | the channel exists for this bundle id here | `ChannelNotRegistered` |
/// | 16 | a *No Messages Stored* channel takes only `apns-expiration: 0` | `BadExpirationDate` |
/// | 17 | the payload: empty, size (5,120 bytes), a JSON object | `PayloadEmpty`, `PayloadTooLarge`, `BadRequestPayload` |
/// | 18 | the Live Activity payload rules (`PayloadTypeRules`), refused only with `payloadRules: .refuse` | `InvalidPushType` |
///
/// An accepted broadcast gets `apns-unique-id` in both environments: the broadcast page lists
/// it among the success headers with no environment named (device pushes get it on the
/// sandbox only).
package struct BroadcastDecider: Sendable {
    /// The path every broadcast goes to, before the bundle id.
    package static let pathPrefix = "/4/broadcasts/apps/"

    package let options: BroadcastOptions
    package let validation: ValidationOptions
    package let registry: ChannelRegistry
    /// "Now" for the payload's Live Activity dates.
    package let clock: ServerClock
    private let apnsIDs: UUIDGenerator
    private let lowercaseIDs = UUIDGenerator(letterCase: .lowercase)
    private let payloadTypeRules = PayloadTypeRules()

    package init(
        options: BroadcastOptions = .default, validation: ValidationOptions = .default, registry: ChannelRegistry,
        clock: ServerClock = ServerClock()
    ) {
        self.options = options
        self.validation = validation
        self.registry = registry
        self.clock = clock
        self.apnsIDs = UUIDGenerator(letterCase: validation.generatedAPNsIDCase)
    }

    /// Whether a `:path` is a broadcast's (the provider API routes on this).
    package static func isBroadcastPath(_ path: String) -> Bool {
        path.hasPrefix(pathPrefix)
    }

    /// Whether `head`'s `:path` is a broadcast's, read from its bytes (no string made).
    package static func isBroadcastPath(_ head: RequestHead) -> Bool {
        head.withBytes(of: .path) { path in pathPrefix.withUTF8Bytes { path.hasPrefix($0) } } ?? false
    }

    /// The `apns-request-id` a response to these headers carries: the request's when it sent
    /// a UUID, otherwise a new lowercase one.
    package func responseRequestID(for head: RequestHead) -> String {
        if let sent = head[.apnsRequestID],
           UUIDSyntax.isCanonical(sent, allowsUppercase: true) {
            return sent
        }
        return lowercaseIDs.next().text
    }

    /// The record of a broadcast as far as its headers and path say, without judging it: for
    /// a request a scenario answered before the core was consulted.
    package func describe(_ request: ProviderRequest, requestID: String, authentication: AuthenticationResult) -> BroadcastRecord {
        let head = request.head
        var bundleID: String?
        if let path = head[.path], Self.isBroadcastPath(path) {
            let segment = path.dropFirst(Self.pathPrefix.count)
            if !segment.isEmpty { bundleID = String(segment) }
        }
        return BroadcastRecord(
            bundleID: bundleID, channelID: head[.apnsChannelID], topic: head[.apnsTopic], pushType: head[.apnsPushType],
            requestAPNsID: head[.apnsID], requestID: requestID, priority: head[.apnsPriority], expiration: head[.apnsExpiration],
            payload: request.body, authentication: JournalAuthentication(authentication), answer: .nothing()
        )
    }

    /// Decides one broadcast. `requestID` is the `apns-request-id` the answer carries;
    /// `payloadJSON` is the body's one examination with its value kept, when the caller made
    /// it (otherwise it is made here, when the rules reach the payload).
    package func decide(
        _ request: ProviderRequest, requestID: String, context: DecisionContext, payloadJSON: PayloadJSON? = nil
    ) -> BroadcastDecision {
        let head = request.head
        var bundleID: String?
        var storagePolicy: MessageStoragePolicy?
        var diagnoses: [Diagnosis] = []
        let apnsIDIsValid = head[.apnsID].map { UUIDSyntax.isCanonical($0, allowsUppercase: validation.acceptsUppercaseAPNsIDs) } ?? true
        let apnsID = (apnsIDIsValid ? head[.apnsID] : nil).map(MessageID.text) ?? apnsIDs.next()
        func record(_ verdict: Verdict) -> BroadcastDecision {
            BroadcastDecision(verdict: verdict, record: BroadcastRecord(
                bundleID: bundleID, channelID: head[.apnsChannelID], topic: head[.apnsTopic], pushType: head[.apnsPushType],
                requestAPNsID: head[.apnsID], requestID: requestID, priority: head[.apnsPriority], expiration: head[.apnsExpiration],
                storagePolicy: storagePolicy, payload: request.body,
                authentication: JournalAuthentication(context.authentication), answer: .http2(verdict)
            ), diagnoses: diagnoses)
        }
        func refuse(_ reason: Reason) -> BroadcastDecision {
            record(.rejected(reason: reason, apnsID: apnsID, timestamp: nil))
        }

        guard let path = head[.path], Self.isBroadcastPath(path) else { return refuse(.badPath) }
        let pathBundleID = String(path.dropFirst(Self.pathPrefix.count))
        guard !pathBundleID.isEmpty, !pathBundleID.contains("/"), !pathBundleID.contains("?") else { return refuse(.badPath) }
        bundleID = pathBundleID
        if !head.value(.method, is: "POST") { return refuse(options.wrongMethodReason) }
        if let refusal = BroadcastCredentials.authenticationRefusal(context.authentication, environment: context.environment) {
            return refuse(refusal)
        }

        // Any name sent twice, whether Apple defines it or not.
        if !head.repeated.isEmpty || head.repeatsOtherField { return refuse(.duplicateHeaders) }
        if !apnsIDIsValid { return refuse(.badMessageId) }
        if let sent = head[.apnsRequestID], !UUIDSyntax.isCanonical(sent, allowsUppercase: true) { return refuse(.badMessageId) }
        if BroadcastCredentials.hasPushTypeSuffix(pathBundleID) { return refuse(.topicDisallowed) }
        if let refusal = BroadcastCredentials.coverageRefusal(
            context.authentication, bundleID: pathBundleID, notCovered: options.bundleNotCoveredReason
        ) {
            return refuse(refusal)
        }
        if options.disabledBundleIDs.contains(pathBundleID) { return refuse(.featureNotEnabled) }

        guard let pushType = head[.apnsPushType] else { return refuse(.missingPushType) }
        guard options.isLiveActivityPushType(pushType, spellings: BroadcastOptions.headerPushTypeSpellings) else {
            return refuse(.invalidPushType)
        }
        if let topic = head[.apnsTopic] {
            guard case .wellFormed = TopicRules.classify(topic) else { return refuse(.badTopic) }
            if topic != pathBundleID {
                // A topic that is this app's with a suffix: "no push type suffix" (TopicDisallowed).
                if TopicRules.bundleID(of: topic) == pathBundleID[...] { return refuse(.topicDisallowed) }
                diagnoses.append(Diagnosis(
                    .broadcastTopicForOtherApp,
                    "The broadcast's apns-topic is \(topic) but its path names \(pathBundleID): broadcasts are addressed by the "
                        + "path's bundle id, and Apple documents no apns-topic for them. Send none, or the path's bundle id."
                ))
                if case .reject(let reason) = options.topicForOtherApp { return refuse(reason) }
            }
        }

        var expiration: Int64?
        if let value = head.withBytes(of: .apnsExpiration, HeaderValueSyntax.expiration) {
            guard let value else { return refuse(.badExpirationDate) }
            expiration = value
        }
        if let priority = head.withBytes(of: .apnsPriority, HeaderValueSyntax.priority) {
            guard let priority, options.allowedPriorities.contains(priority) else { return refuse(.badPriority) }
        }
        let missing = [("apns-expiration", RequestHead.Field.apnsExpiration), ("apns-priority", .apnsPriority)]
            .filter { !head.contains($0.1) }.map(\.0)
        if !missing.isEmpty {
            diagnoses.append(Diagnosis(
                .broadcastMissingRequiredHeader,
                "The broadcast has no \(missing.joined(separator: " and ")): Apple's header table marks apns-expiration and "
                    + "apns-priority as required for broadcasts. "
                    + (options.refusesMissingRequiredHeaders ? "Refused (broadcast.refusesMissingRequiredHeaders)."
                                                             : "Accepted (broadcast.refusesMissingRequiredHeaders is off).")
            ))
            if options.refusesMissingRequiredHeaders {
                return refuse(head.contains(.apnsExpiration) ? .badPriority : .badExpirationDate)
            }
        }
        if let collapseID = head[.apnsCollapseID], collapseID.utf8.count > HTTP2RequestValidator.maximumCollapseIDLength {
            return refuse(.badCollapseId)
        }
        guard let channelID = head[.apnsChannelID] else { return refuse(.missingChannelId) }
        guard ChannelID.isWellFormed(channelID, maximumLength: options.maximumChannelIDLength) else {
            return refuse(.badChannelId)
        }

        guard let channel = registry.channel(id: channelID, bundleID: pathBundleID, environment: context.environment) else {
            return refuse(.channelNotRegistered)
        }
        storagePolicy = channel.storagePolicy
        if channel.storagePolicy == .noMessageStored, let expiration, expiration != 0 {
            return refuse(.badExpirationDate)
        }

        if request.body.isEmpty { return refuse(.payloadEmpty) }
        if request.body.count > options.payloadLimit { return refuse(.payloadTooLarge) }
        // Examined once, for the shape rule and the Live Activity rules (which read its value).
        let json = payloadJSON.flatMap { $0.keepsValue ? $0 : nil } ?? PayloadJSON(request.body, keepingValue: true)
        if case .reject(let reason) = options.unparseableBody, !json.isObject {
            return refuse(reason)
        }
        let mismatches = payloadTypeRules.check(
            json: json, pushType: .liveactivity, priority: nil,
            nowSeconds: clock.millisecondsSince1970 / 1000, isBroadcast: true
        )
        diagnoses += mismatches.map(\.diagnosis)
        if validation.payloadRules == .refuse, let first = mismatches.first { return refuse(first.refusal) }

        return record(.accepted(apnsID: apnsID, uniqueID: lowercaseIDs.next()))
    }
}

/// What the broadcast core concluded: its verdict, the record of the request (whose answer
/// the protocol mouth replaces with what it actually wrote), and the diagnoses the journal
/// records beside it. The record's fields read through (`decision.bundleID`).
@dynamicMemberLookup
package struct BroadcastDecision: Sendable, Equatable {
    package var verdict: Verdict
    package var record: BroadcastRecord
    package var diagnoses: [Diagnosis] = []

    package subscript<Value>(dynamicMember field: KeyPath<BroadcastRecord, Value>) -> Value {
        record[keyPath: field]
    }
}

