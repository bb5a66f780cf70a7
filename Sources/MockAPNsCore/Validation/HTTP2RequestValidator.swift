import MockAPNsWire
/// Apple's request rules for the HTTP/2 provider API: turns the raw headers and body of one
/// stream into a normalized `PushRequest`, or the `Reason` APNs would answer with.
///
/// ## Validation order
///
/// Apple does not document which fault wins when a request has several, so MockAPNs fixes
/// one order, based on pushy's mock server. The first failing check decides:
///
/// | step | check | reason |
/// |---|---|---|
/// | 1 | a header name appears twice (see `ValidationOptions.duplicateHeaderScope`) | `DuplicateHeaders` |
/// | 2 | `apns-id`, if present, is a canonical UUID | `BadMessageId` |
/// | 3 | `:method` is `POST` (absent counts as wrong) | `MethodNotAllowed` |
/// | 4 | `apns-topic`, if present, is well-formed (`TopicRules.isWellFormed`) | `BadTopic` |
/// | 5 | `apns-collapse-id`, if present, is at most 64 bytes | `BadCollapseId` |
/// | 6 | `apns-expiration`, if present, is decimal epoch seconds | `BadExpirationDate` |
/// | 7 | `apns-priority`, if present, is `1`, `5` or `10` | `BadPriority` |
/// | 8 | `apns-push-type`, if present, is one of `PushType` | `InvalidPushType` |
/// | 9 | `:path` is `/3/device/<token>`; `/3/device/` alone | `BadPath`; `MissingDeviceToken` |
/// | 10 | the token is even-length hex of the allowed size | `BadDeviceToken` |
/// | 11 | the push type suits the topic's suffix (`TopicRules.check`) | `InvalidPushType`, `TopicDisallowed` |
/// | 12 | `background` is not sent with an explicit `apns-priority: 10` | `BadPriority` (configurable) |
///
/// The decision core (`PushDecider`) continues where this ends (steps 13 to 16):
/// authentication, topic rules that depend on the credentials (`MissingTopic`,
/// `TopicDisallowed`), the device registry, and finally the payload (`PayloadRules`:
/// `PayloadEmpty`, `PayloadTooLarge`, shape). Authentication thus slots in between the
/// header rules and the payload rules, where pushy's mock has it.
///
/// Where this departs from pushy's order: duplicates come first (pushy does not check them,
/// and a repeated header makes every later check ambiguous); pushy's "topic present" slot
/// checks only the topic's syntax here, because whether a topic is required depends on the
/// credentials; and the registry ("token known for topic") comes after authentication, so an
/// unauthenticated client learns nothing about tokens.
///
/// Headers Apple does not define are ignored. The validator never allocates beyond the
/// `PushRequest` it returns (and the lowercased token when the client sent uppercase).
package struct HTTP2RequestValidator: Sendable {
    /// The path every push goes to, before the token.
    static let devicePathPrefix: StaticString = "/3/device/"

    /// Apple's limit on `apns-collapse-id`, in bytes.
    package static let maximumCollapseIDLength = 64

    package let options: ValidationOptions
    private let tokenSyntax: DeviceTokenSyntax

    package init(options: ValidationOptions = .default) {
        self.options = options
        self.tokenSyntax = DeviceTokenSyntax(
            allowsUppercase: options.acceptsUppercaseDeviceTokens,
            byteLengths: options.deviceTokenByteLengths
        )
    }

    /// Applies steps 1 to 12 of the documented order to one request.
    package func validate(_ request: ProviderRequest) -> HTTP2Validation {
        let head = request.head

        // Step 2 is evaluated first because every failure response echoes a valid apns-id.
        let apnsID = head[.apnsID]
        let apnsIDIsValid = apnsID.map {
            UUIDSyntax.isCanonical($0, allowsUppercase: options.acceptsUppercaseAPNsIDs)
        } ?? true
        let echoedID = apnsIDIsValid && !head.repeated.contains(.apnsID) ? apnsID : nil
        func refuse(_ reason: Reason) -> HTTP2Validation {
            .invalid(reason, apnsID: echoedID)
        }

        if Self.hasDuplicate(head, scope: options.duplicateHeaderScope) { return refuse(.duplicateHeaders) }
        if !apnsIDIsValid { return refuse(.badMessageId) }
        if !head.value(.method, is: "POST") { return refuse(.methodNotAllowed) }
        // The topic is scanned once; its suffix serves step 11.
        let topic = head[.apnsTopic]
        var topicSuffix: PushType?
        if let topic {
            guard case .wellFormed(let suffix) = TopicRules.classify(topic) else { return refuse(.badTopic) }
            topicSuffix = suffix
        }
        let collapseID = head[.apnsCollapseID]
        if let collapseID, collapseID.utf8.count > Self.maximumCollapseIDLength {
            return refuse(.badCollapseId)
        }

        // Values that are only checked are read as bytes; no string is made for them.
        var expiration: Int64?
        if let value = head.withBytes(of: .apnsExpiration, HeaderValueSyntax.expiration) {
            guard let value else { return refuse(.badExpirationDate) }
            expiration = value
        }
        var priority: Priority?
        if let value = head.withBytes(of: .apnsPriority, HeaderValueSyntax.priority) {
            guard let value else { return refuse(.badPriority) }
            priority = value
        }
        var pushType: PushType?
        if let value = head.withBytes(of: .apnsPushType, HeaderValueSyntax.pushType) {
            guard let value else { return refuse(.invalidPushType) }
            pushType = value
        }

        let deviceToken: String
        // A closure, not the method itself: a method reference would box `self` on every request.
        let previous = request.previousDeviceToken
        switch head.withBytes(of: .path, { readToken($0, previous: previous) }) ?? .badPath {
        case .badPath: return refuse(.badPath)
        case .missing: return refuse(.missingDeviceToken)
        case .malformed: return refuse(.badDeviceToken)
        case .token(let normalized): deviceToken = normalized
        }

        if topic != nil,
           let reason = TopicRules.check(
               pushType: pushType, topicSuffix: topicSuffix, missingSuffixReason: options.missingTopicSuffixReason
           ) {
            return refuse(reason)
        }
        // Only an explicit 10 counts: refusing background pushes that omit the header would
        // break clients on a rule whose live behaviour nobody has recorded.
        if pushType == .background, priority == .immediate,
           case .reject(let reason) = options.backgroundWithImmediatePriority {
            return refuse(reason)
        }

        return .valid(PushRequest(
            transport: .http2,
            deviceToken: deviceToken,
            topic: topic,
            pushType: pushType,
            apnsID: apnsID,
            expiration: expiration,
            priority: priority,
            collapseID: collapseID,
            payload: request.body
        ))
    }

    /// What step 10 finds in a `:path`.
    private enum TokenReading {
        case badPath, missing, malformed
        case token(String)
    }

    /// Step 10 on the bytes of a `:path`: the device token, lowercased, is the only string
    /// made, and none when it is `previous` byte for byte.
    private func readToken(_ path: UnsafeBufferPointer<UInt8>, previous: String?) -> TokenReading {
        guard let token = Self.deviceToken(inPath: path) else { return .badPath }
        if token.isEmpty { return .missing }
        return tokenSyntax.normalized(token, reusing: previous).map(TokenReading.token) ?? .malformed
    }

    /// The fields APNs defines: a repeat of one is always `DuplicateHeaders`.
    private static let apnsFields = RequestHead.FieldSet([
        .method, .scheme, .authority, .path, .authorization,
        .apnsID, .apnsExpiration, .apnsPriority, .apnsTopic, .apnsPushType, .apnsCollapseID,
    ])

    /// Whether `name` is a field APNs defines.
    static func isAppleField(_ name: String) -> Bool {
        guard let field = name.withUTF8Bytes(RequestHead.Field.init) else { return false }
        return apnsFields.contains(field)
    }

    /// Step 1: whether a field came twice. A field APNs defines always counts; any other
    /// only when `scope` is every header.
    private static func hasDuplicate(_ head: RequestHead, scope: DuplicateHeaderScope) -> Bool {
        if !head.repeated.intersection(apnsFields).isEmpty { return true }
        switch scope {
        case .allHeaders: return !head.repeated.isEmpty || head.repeatsOtherField
        case .appleHeaders: return false
        }
    }

    /// Why the request's device token was refused `BadDeviceToken` by step 10, as a diagnosis
    /// (`http2.malformedDeviceToken`); `nil` when its token is well-formed or absent.
    package func deviceTokenDiagnosis(_ request: ProviderRequest) -> Diagnosis? {
        guard let path = request.head[.path],
              let token = Self.deviceToken(inPath: path), !token.isEmpty,
              let problem = tokenSyntax.problem(token) else { return nil }
        return Diagnosis(
            .http2MalformedDeviceToken, problem,
            figures: [JournalFigure("hexDigits", Int64(token.utf8.count))])
    }

    /// The token part of a `:path`, or `nil` when the path is not under `/3/device/`: the one
    /// reading of a device path, shared by the validator, the record of a refused request and
    /// the scenario's facts. The token may be empty (`MissingDeviceToken`); anything after the
    /// prefix, including a query string or more slashes, is taken as the token and fails its
    /// syntax check.
    package static func deviceToken(inPath path: String) -> Substring? {
        guard path.withUTF8Bytes({ $0.hasPrefix(devicePathPrefix) }) else { return nil }
        // The prefix is ASCII, so this index is also a character boundary.
        let tokenStart = path.utf8.index(path.utf8.startIndex, offsetBy: devicePathPrefix.utf8CodeUnitCount)
        return path[tokenStart...]
    }

    /// The same reading of a `:path`'s bytes: the bytes of its token part.
    package static func deviceToken(inPath path: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard path.hasPrefix(devicePathPrefix) else { return nil }
        return UnsafeBufferPointer(rebasing: path[devicePathPrefix.utf8CodeUnitCount...])
    }
}

/// The outcome of `HTTP2RequestValidator.validate(_:)`.
package enum HTTP2Validation: Sendable, Equatable {
    /// The request passed every header rule.
    case valid(PushRequest)
    /// The request is refused. `apnsID` is the request's `apns-id` when it was sent once and
    /// well-formed (the response echoes it); otherwise the server generates one.
    case invalid(Reason, apnsID: String?)
}

extension PushRequest {
    /// The fields of an HTTP/2 request the header rules refused, as far as its headers tell
    /// them (for the journal's record of a refusal).
    package init(bestEffort push: ProviderRequest) {
        self.init(transport: .http2, deviceToken: "", payload: push.body)
        let head = push.head
        if let path = head[.path], let token = HTTP2RequestValidator.deviceToken(inPath: path) { deviceToken = String(token) }
        topic = head[.apnsTopic]
        pushType = head[.apnsPushType].flatMap(PushType.init(rawValue:))
        apnsID = head[.apnsID]
        collapseID = head[.apnsCollapseID]
        priority = head[.apnsPriority].flatMap { Int($0) }.flatMap(Priority.init(rawValue:))
        expiration = head[.apnsExpiration].flatMap { Int64($0) }
    }
}
