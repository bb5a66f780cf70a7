import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
/// The channel management API's decision core: one request's headers and body in, the
/// verdict APNs gives (with what an acceptance carries, which `ResponseShape` writes) and
/// what it does to the channel registry out (docs/broadcast-protocol.md
/// section 1). Apple documents the API in "Sending channel management requests to APNs"
/// (developer.apple.com/documentation/usernotifications/sending-channel-management-requests-to-apns)
/// and its refusals in "Handling error responses from Apple Push Notification service".
///
/// ## Decision order (the first failure wins)
///
/// Apple documents none for this API; MockAPNs authenticates first, as Apple documents for
/// broadcasts.
///
/// | step | check | reason |
/// |---|---|---|
/// | 1 | the path is `/1/apps/<bundleID>/channels` or `/all-channels` | `BadPath` (404) |
/// | 2 | the method suits the path | `broadcast.wrongMethodReason` (`MethodNotAllowed`, 405) |
/// | 3 | authentication and its environment | the provider API's 403 reasons |
/// | 4 | `apns-request-id`, if present, is a UUID | `BadMessageId` |
/// | 5 | the bundle id carries no push-type suffix | `TopicDisallowed` |
/// | 6 | the credentials cover the bundle id | `TopicMismatch` (403) |
/// | 7 | broadcast enabled for the bundle id | `FeatureNotEnabled` |
/// | 8 | read and delete: `apns-channel-id` present, well-formed | `MissingChannelId`, `BadChannelId` |
/// | 9 | create: a JSON object, known attributes, `push-type`, `message-storage-policy`, the channel limit | `BadRequestPayload`, `BadRequestParams`, `MissingPushType`, `InvalidPushType`, `broadcast.badStoragePolicyReason` (`BadRequestParams`), `CannotCreateChannelConfig` |
/// | 10 | read and delete: the channel exists for this bundle id here | `ChannelNotRegistered` |
package struct ChannelManagementDecider: Sendable {
    package let options: BroadcastOptions
    package let registry: ChannelRegistry
    package let clock: ServerClock
    private let requestIDs = UUIDGenerator(letterCase: .lowercase)

    package init(options: BroadcastOptions = .default, registry: ChannelRegistry, clock: ServerClock = ServerClock()) {
        self.options = options
        self.registry = registry
        self.clock = clock
    }

    /// The `apns-request-id` a response to these headers carries: the request's when it sent
    /// a UUID, otherwise a new lowercase one (Apple: "APNs creates a new UUID").
    package func responseRequestID(for head: RequestHead) -> String {
        if let sent = head[.apnsRequestID], UUIDSyntax.isCanonical(sent, allowsUppercase: true) {
            return sent
        }
        return requestIDs.next().text
    }

    /// How the channel management API's answers look: no `apns-id`, the `apns-request-id`
    /// (`requestID`, from `responseRequestID(for:)`) on every one.
    package static func shape(requestID: String) -> ResponseShape {
        ResponseShape(extraHeaders: [HTTPHeader(name: "apns-request-id", value: requestID)], includesAPNsID: false)
    }

    /// Decides one request and applies its change to the registry at once.
    /// `requestID` is the `apns-request-id` the answer carries (`responseRequestID(for:)`).
    package func decide(_ request: ProviderRequest, requestID: String, context: DecisionContext) -> ChannelManagementOutcome {
        let outcome = judge(request, requestID: requestID, context: context)
        apply(outcome)
        return outcome
    }

    /// Makes the change a judged request asks for (`outcome.effect`): the server calls it
    /// only when the core's answer is the one sent, so a scenario that refuses a create or
    /// delete leaves the registry as it was. Two creates judged at once may both pass a limit
    /// that has room for one.
    package func apply(_ outcome: ChannelManagementOutcome) {
        switch outcome.effect {
        case .create(let channel)?:
            registry.insert(channel)
        case .delete(let id, let bundleID, let environment)?:
            registry.delete(id: id, bundleID: bundleID, environment: environment)
        case nil:
            break
        }
    }

    /// What a request asks for, as far as its headers and path say, without judging it: the
    /// record of a request a scenario answered before the core was consulted.
    package func describe(_ request: ProviderRequest, requestID: String) -> ChannelManagementOutcome {
        let head = request.head
        let route = ChannelManagementRoute.resolve(method: head[.method], path: head[.path])
        return ChannelManagementOutcome(
            operation: route.operation, bundleID: route.bundleID, channelID: head[.apnsChannelID], requestID: requestID
        )
    }

    /// Decides one request without changing the registry; `apply(_:)` makes the change.
    package func judge(_ request: ProviderRequest, requestID: String, context: DecisionContext) -> ChannelManagementOutcome {
        let head = request.head
        var outcome = ChannelManagementOutcome(operation: nil, bundleID: nil, channelID: head[.apnsChannelID], requestID: requestID)

        let route = ChannelManagementRoute.resolve(method: head[.method], path: head[.path])
        outcome.operation = route.operation
        outcome.bundleID = route.bundleID
        if let refusal = route.refusal {
            return outcome.refused(refusal == .methodNotAllowed ? options.wrongMethodReason : refusal)
        }
        guard let operation = route.operation, let bundleID = route.bundleID else { return outcome.refused(.badPath) }

        if let refusal = BroadcastCredentials.authenticationRefusal(context.authentication, environment: context.environment) {
            return outcome.refused(refusal)
        }
        if let sent = head[.apnsRequestID], !UUIDSyntax.isCanonical(sent, allowsUppercase: true) {
            return outcome.refused(.badMessageId)
        }
        if BroadcastCredentials.hasPushTypeSuffix(bundleID) { return outcome.refused(.topicDisallowed) }
        if let refusal = BroadcastCredentials.coverageRefusal(
            context.authentication, bundleID: bundleID, notCovered: options.bundleNotCoveredReason
        ) {
            return outcome.refused(refusal)
        }
        if options.disabledBundleIDs.contains(bundleID) { return outcome.refused(.featureNotEnabled) }

        switch operation {
        case .create:
            let body: ChannelCreationBody
            switch ChannelCreationBody.parse(request.body, options: options) {
            case .body(let parsed): body = parsed
            case .refused(let reason): return outcome.refused(reason)
            }
            outcome.storagePolicy = body.storagePolicy
            let existing = registry.channels(bundleID: bundleID, environment: context.environment)
            guard existing.count < options.channelLimit else { return outcome.refused(.cannotCreateChannelConfig) }
            var id = ChannelID.generate(byteCount: options.channelIDByteCount)
            while existing.contains(where: { $0.id == id }) { id = ChannelID.generate(byteCount: options.channelIDByteCount) }
            let channel = BroadcastChannel(
                id: id, bundleID: bundleID, environment: context.environment, storagePolicy: body.storagePolicy,
                createdAtMilliseconds: clock.millisecondsSince1970
            )
            outcome.channelID = id
            outcome.effect = .create(channel)
            return outcome.answered(status: 201, fields: [HTTPHeader(name: "apns-channel-id", value: id)])

        case .readAll:
            var writer = JSONWriter()
            writer.beginObject()
            writer.strings("channels", registry.channels(bundleID: bundleID, environment: context.environment).map(\.id))
            writer.endObject()
            return outcome.answered(status: 200, json: writer.text)

        case .read, .delete:
            guard let channelID = head[.apnsChannelID] else { return outcome.refused(.missingChannelId) }
            guard ChannelID.isWellFormed(channelID, maximumLength: options.maximumChannelIDLength) else {
                return outcome.refused(.badChannelId)
            }
            guard let channel = registry.channel(id: channelID, bundleID: bundleID, environment: context.environment) else {
                return outcome.refused(.channelNotRegistered)
            }
            outcome.storagePolicy = channel.storagePolicy
            if operation == .delete {
                outcome.effect = .delete(id: channelID, bundleID: bundleID, environment: context.environment)
                return outcome.answered(status: 204)
            }
            var writer = JSONWriter()
            writer.beginObject()
            writer.integer("message-storage-policy", channel.storagePolicy.rawValue)
            writer.string("push-type", BroadcastChannel.pushType)
            writer.endObject()
            return outcome.answered(status: 200, json: writer.text)
        }
    }
}

/// What one management request did and the answer it got (its record's fields,
/// `ChannelOperationOutcome`), and the change it asks of the registry.
@dynamicMemberLookup
package struct ChannelManagementOutcome: Sendable, Equatable {
    /// What the journal records of it.
    package var recorded: ChannelOperationOutcome
    /// The change to the registry the request asks for (`nil`: none, or refused).
    package var effect: ChannelEffect?
    /// What the acceptance carries (its status, the channel as JSON, `apns-channel-id`);
    /// `nil` when refused or not judged.
    package var acceptance: Acceptance?

    package init(operation: ChannelOperation?, bundleID: String?, channelID: String?, requestID: String) {
        recorded = ChannelOperationOutcome(operation: operation, bundleID: bundleID, channelID: channelID, requestID: requestID)
    }

    package subscript<Value>(dynamicMember field: WritableKeyPath<ChannelOperationOutcome, Value>) -> Value {
        get { recorded[keyPath: field] }
        set { recorded[keyPath: field] = newValue }
    }

    /// The verdict: refused for `reason`, else accepted (`acceptance` says what it carries).
    /// Neither carries an `apns-id` on the wire (`shape`); the request id stands in its place.
    package var verdict: Verdict {
        recorded.reason.map { .rejected(reason: $0, apnsID: .text(recorded.requestID), timestamp: nil) }
            ?? .accepted(apnsID: .text(recorded.requestID), uniqueID: nil)
    }

    /// How the answer to this request looks (`ChannelManagementDecider.shape(requestID:)`).
    package var shape: ResponseShape { ChannelManagementDecider.shape(requestID: recorded.requestID) }

    /// The answer APNs gives for this outcome, as `shape` writes `verdict`.
    package var answer: ProviderAnswer { shape.render(verdict, acceptance: acceptance) }

    fileprivate func refused(_ reason: Reason) -> ChannelManagementOutcome {
        var outcome = self
        outcome.reason = reason
        outcome.effect = nil
        outcome.acceptance = nil
        return outcome
    }

    fileprivate func answered(status: Int, fields: [HTTPHeader] = [], json: String? = nil) -> ChannelManagementOutcome {
        var outcome = self
        outcome.acceptance = Acceptance(status: status, json: json.map { Array($0.utf8) }, fields: fields)
        return outcome
    }
}

extension ChannelOperationRecord {
    /// The record of a judged request: answered as the core decided (`answer` `nil`), or otherwise.
    package init(outcome: ChannelManagementOutcome, authentication: JournalAuthentication, answer: SentAnswer? = nil) {
        self.init(outcome: outcome.recorded, authentication: authentication, answer: answer)
    }
}

/// A change to the channel registry that a successful create or delete makes.
package enum ChannelEffect: Sendable, Equatable {
    case create(BroadcastChannel)
    case delete(id: String, bundleID: String, environment: APNsEnvironment)
}

/// The create body: `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}`.
struct ChannelCreationBody: Equatable {
    var storagePolicy: MessageStoragePolicy

    /// The body, or the reason it is refused, in this order: not a JSON object
    /// (`BadRequestPayload`, "unparseable"), an attribute other than the two
    /// (`BadRequestParams`, "an unrecognizable attribute"), then `MissingPushType` and
    /// `InvalidPushType` (Apple names both), then the storage policy
    /// (`options.badStoragePolicyReason`). Each of the first two can be turned off
    /// (`unparseableBody`, `unknownBodyAttribute`): the body then reads as having no attributes,
    /// or the unknown one is ignored.
    enum Parsed: Equatable {
        case body(ChannelCreationBody)
        case refused(Reason)
    }

    /// The attributes Apple documents for the create body.
    static let attributes: Set<String> = ["message-storage-policy", "push-type"]

    static func parse(_ body: [UInt8], options: BroadcastOptions) -> Parsed {
        var members: [JSONMember] = []
        if let node = try? JSONParser.parse(String(decoding: body, as: UTF8.self)), case .object(let object) = node.value {
            members = object
        } else if case .reject(let reason) = options.unparseableBody {
            return .refused(reason)
        }
        if case .reject(let reason) = options.unknownBodyAttribute, members.contains(where: { !attributes.contains($0.key) }) {
            return .refused(reason)
        }
        func value(_ key: String) -> JSONValue? { members.first { $0.key == key }?.value.value }

        guard let pushType = value("push-type") else { return .refused(.missingPushType) }
        guard case .string(let pushTypeText) = pushType,
              options.isLiveActivityPushType(pushTypeText, spellings: BroadcastOptions.bodyPushTypeSpellings)
        else { return .refused(.invalidPushType) }

        let policyNumber: String?
        switch value("message-storage-policy") {
        case .number(let text)?: policyNumber = text
        case .string(let text)? where options.acceptsStoragePolicyStrings: policyNumber = text
        default: policyNumber = nil
        }
        guard let policyNumber, let raw = Int(policyNumber), let policy = MessageStoragePolicy(rawValue: raw) else {
            return .refused(options.badStoragePolicyReason)
        }
        return .body(ChannelCreationBody(storagePolicy: policy))
    }
}

