import MockAPNsWire
/// The decision core: one function over plain values that says what APNs answers to one
/// notification, whichever protocol mouth it came through.
///
/// ## Decision order
///
/// For an HTTP/2 request, `decide(http2:context:)` first applies the header rules of
/// `HTTP2RequestValidator` (steps 1 to 12, documented there). Then, for requests of both
/// protocols, `decide(_:context:)` continues:
///
/// | step | check | reason |
/// |---|---|---|
/// | 13 | authentication (`AuthenticationResult`) | `MissingProviderToken`, the refused credentials' reason, `BadCertificateEnvironment` |
/// | 14 | the topic the credentials allow (rules on `routeTopic` below) | `MissingTopic`, `TopicDisallowed` (configurable), `InvalidPushType` |
/// | 15 | the device registry: environment, topic binding, expiry, unregistration, push budget | `BadDeviceToken`, `DeviceTokenNotForTopic`, `TopicDisallowed`, `ExpiredToken`, `Unregistered`, `TooManyRequests` |
/// | 16 | the payload (`PayloadRules`): empty, size, shape | `PayloadEmpty`, `PayloadTooLarge`, the configured reason |
/// | 17 | the payload against its push type (`PayloadTypeRules`), refused only with `payloadRules: .refuse` | `InvalidPushType`, `BadPriority` (MockAPNs' choice) |
///
/// Besides the verdict, `assess` returns what the answer alone does not tell (`Diagnosis`):
/// the payload mistakes of step 17 (found whether refused or not), the environment a
/// token refused with `BadDeviceToken` belongs to, a full rate window's figures.
///
/// An accepted push gets `apns-id` (the request's, exactly as received, or a generated one
/// in the configured letter case) and, on a sandbox server only, a fresh lowercase
/// `apns-unique-id`. A refused one gets the same `apns-id`, and a timestamp for 410 reasons.
package struct PushDecider: Sendable {
    /// The options every rule reads.
    package let options: ValidationOptions
    /// The shared registry of device tokens (and the feedback queue).
    package let registry: DeviceRegistry
    /// The only source of "now": push budgets, and 410 timestamps no rule supplied.
    package let clock: ServerClock

    private let validator: HTTP2RequestValidator
    private let payloadRules: PayloadRules
    private let payloadTypeRules = PayloadTypeRules()
    private let apnsIDs: UUIDGenerator
    /// `apns-unique-id` is always lowercase, the canonical UUID form in Apple's documentation.
    private let uniqueIDs = UUIDGenerator(letterCase: .lowercase)

    package init(
        options: ValidationOptions = .default,
        registry: DeviceRegistry = DeviceRegistry(),
        clock: ServerClock = ServerClock()
    ) {
        self.options = options
        self.registry = registry
        self.clock = clock
        self.validator = HTTP2RequestValidator(options: options)
        self.payloadRules = PayloadRules(options: options)
        self.apnsIDs = UUIDGenerator(letterCase: options.generatedAPNsIDCase)
    }

    /// Validates a raw HTTP/2 request (steps 1 to 12), then decides it (steps 13 to 17).
    /// A refused request keeps its `apns-id` when that was well-formed; otherwise the
    /// verdict carries a generated one.
    package func decide(http2 raw: ProviderRequest, context: DecisionContext) -> Verdict {
        assess(http2: raw, context: context).verdict
    }

    /// Validates, then decides, an HTTP/2 request: the verdict, and the request as every
    /// record, filter and scenario rule reads it (routed, when it was valid; when it was not,
    /// what its headers say as far as they could be read).
    package func judge(http2 raw: ProviderRequest, context: DecisionContext) -> (verdict: Verdict, request: PushRequest) {
        let assessment = assess(http2: raw, context: context)
        return (assessment.verdict, assessment.request)
    }

    /// What `judge(http2:context:)` says, with the diagnoses the journal records beside it.
    /// `payloadJSON` is the body already examined, when the caller has it (so it is scanned once).
    package func assess(http2 raw: ProviderRequest, context: DecisionContext, payloadJSON: PayloadJSON? = nil) -> PushAssessment {
        switch validator.validate(raw) {
        case .valid(let request):
            let decided = assess(request, context: context, payloadJSON: payloadJSON)
            return PushAssessment(verdict: decided.verdict, request: route(request, context: context), diagnoses: decided.diagnoses)
        case .invalid(let reason, let apnsID):
            let verdict = verdict(for: .refused(reason, timestamp: nil), apnsID: apnsID, context: context)
            // BadDeviceToken alone does not say what is wrong with the token: the diagnosis does.
            let diagnoses = reason == .badDeviceToken ? validator.deviceTokenDiagnosis(raw).map { [$0] } ?? [] : []
            return PushAssessment(verdict: verdict, request: PushRequest(bestEffort: raw), diagnoses: diagnoses)
        }
    }

    /// Decides a request that already passed its protocol's syntax rules (steps 13 to 17).
    /// The topic is the one `route(_:context:)` gives; the push type a topic's suffix
    /// implies is the one the payload limit applies (`.voip` gets the VoIP limit).
    package func decide(_ request: PushRequest, context: DecisionContext) -> Verdict {
        assess(request, context: context).verdict
    }

    /// What `decide(_:context:)` says, with the diagnoses the journal records beside it.
    /// `payloadJSON` is the payload already examined, when the caller has it.
    package func assess(
        _ request: PushRequest, context: DecisionContext, payloadJSON: PayloadJSON? = nil
    ) -> (verdict: Verdict, diagnoses: [Diagnosis]) {
        // `status` routes the topic itself, as `route(_:context:)` would.
        let (status, diagnoses) = status(of: request, context: context, payloadJSON: payloadJSON)
        guard request.transport != .legacy else {
            // The binary protocol has no apns-id and no unique id: none is made up.
            return (verdict(for: status, apnsID: "", uniqueID: nil), diagnoses)
        }
        return (verdict(for: status, apnsID: request.apnsID, context: context), diagnoses)
    }

    /// `request` as the decision reads it: with the topic its credentials send it to when it
    /// names none (a single-topic certificate's topic; on the legacy gateway always the
    /// certificate's), and with the push type its topic's suffix implies when it sends none
    /// (`.voip` is `voip`). Every record, filter and scenario rule sees this request, so
    /// they all agree with the verdict. Fields the request sent are never changed, and a
    /// request whose credentials route it nowhere keeps what it had.
    package func route(_ request: PushRequest, context: DecisionContext) -> PushRequest {
        var routed = request
        let implied = route(topic: request.topic, pushType: request.pushType, transport: request.transport, context: context)
        routed.topic = implied.topic
        routed.pushType = implied.pushType
        return routed
    }

    /// The push type the decision reads for a request of `head`: `apns-push-type` when it
    /// names one, else the one its routed topic implies (see `route(_:context:)`).
    package func pushType(of head: RequestHead, context: DecisionContext) -> PushType? {
        if let sent = head.withBytes(of: .apnsPushType, HeaderValueSyntax.pushType) { return sent }
        return route(topic: head[.apnsTopic], pushType: nil, transport: .http2, context: context).pushType
    }

    /// The topic and push type a request with these fields goes to (see `route(_:context:)`).
    package func route(
        topic: String?, pushType: PushType?, transport: Transport, context: DecisionContext
    ) -> (topic: String?, pushType: PushType?) {
        var topic = topic
        if topic == nil {
            let probe = PushRequest(transport: transport, deviceToken: "", pushType: pushType, payload: [])
            if case .topic(let routed) = routeTopic(probe, context: context) { topic = routed }
        }
        var pushType = pushType
        if pushType == nil, let topic {
            pushType = TopicRules.suffix(of: topic)?.type
        }
        return (topic, pushType)
    }

    // MARK: - Steps

    /// Steps 13 to 17, in order; the first refusal wins.
    private func status(of request: PushRequest, context: DecisionContext, payloadJSON: PayloadJSON?) -> (TokenStatus, [Diagnosis]) {
        let topic: String?
        switch routeTopic(request, context: context) {
        case .refused(let reason): return (.refused(reason, timestamp: nil), [])
        case .topic(let routed): topic = routed
        }

        let admission = registry.admission(
            request.deviceToken, topic: topic, environment: context.environment,
            at: clock.millisecondsSince1970
        )
        guard admission.status == .deliverable else { return (admission.status, admission.diagnosis.map { [$0] } ?? []) }

        var routedRequest = request
        routedRequest.topic = topic
        let pushType = request.pushType ?? topic.flatMap { TopicRules.suffix(of: $0)?.type }
        // The caller's examination of the payload; when it did not keep the value the payload
        // type rules read for this push type (or there is none), it is made here, once, for
        // both rules.
        var json = payloadJSON
        if PayloadTypeRules.readsPayload(pushType), json?.keepsValue != true {
            json = PayloadJSON(request.payload, keepingValue: true)
        }
        if let reason = payloadRules.check(routedRequest, json: json) { return (.refused(reason, timestamp: nil), []) }

        let mismatches = payloadTypeRules.check(
            json: json, pushType: pushType, priority: request.priority, nowSeconds: clock.millisecondsSince1970 / 1000
        )
        let diagnoses = mismatches.map(\.diagnosis)
        if options.payloadRules == .refuse, let first = mismatches.first {
            return (.refused(first.refusal, timestamp: nil), diagnoses)
        }
        return (.deliverable, diagnoses)
    }

    private enum TopicRoute {
        case topic(String?)
        case refused(Reason)
    }

    /// Steps 13 and 14: the credentials, then the topic they let the push go to.
    ///
    /// - No authentication required: the request's topic, if any.
    /// - Certificate: refused outside its environments; `location` pushes are refused
    ///   (token-only); without `apns-topic`, a certificate listing more than one topic, or
    ///   having no subject topic, gets `MissingTopic`; otherwise the subject's topic is used
    ///   (legacy frames always use it, as they cannot name a topic). A topic neither listed
    ///   nor the subject's is refused.
    /// - Provider token: `apns-topic` is required; a topic-specific key allows its topics and
    ///   their suffixed variants.
    private func routeTopic(_ request: PushRequest, context: DecisionContext) -> TopicRoute {
        switch context.authentication {
        case .notRequired:
            return .topic(request.topic)

        case .unauthenticated:
            return .refused(.missingProviderToken)

        case .rejected(let reason):
            return .refused(reason)

        case .certificate(let topics, let defaultTopic, let environments):
            guard environments.contains(context.environment) else {
                return .refused(.badCertificateEnvironment)
            }
            // The push type a topic suffix implies counts too: Apple's guidance for both is
            // token-based authentication.
            switch request.pushType ?? request.topic.flatMap({ TopicRules.suffix(of: $0)?.type }) {
            case .location?:
                return .refused(options.locationPushWithCertificateReason)
            case .liveactivity?:
                if case .reject(let reason) = options.liveActivityWithCertificate { return .refused(reason) }
            case nil, .alert?, .background?, .voip?, .complication?, .fileprovider?, .pushtotalk?, .widgets?, .controls?, .mdm?:
                break
            }
            guard let topic = request.topic else {
                guard let defaultTopic, request.transport == .legacy || topics.count <= 1 else {
                    return .refused(.missingTopic)
                }
                // The validator could not pair the push type with a topic it did not see.
                if let reason = TopicRules.check(
                    pushType: request.pushType,
                    topic: defaultTopic,
                    missingSuffixReason: options.missingTopicSuffixReason
                ) {
                    return .refused(reason)
                }
                return .topic(defaultTopic)
            }
            guard topic == defaultTopic || topics.contains(topic) else {
                return .refused(options.topicNotAllowedReason)
            }
            return .topic(topic)

        case .providerToken(_, _, let allowedTopics):
            guard let topic = request.topic else { return .refused(.missingTopic) }
            if let allowedTopics,
               !allowedTopics.contains(topic),
               !allowedTopics.contains(String(TopicRules.bundleID(of: topic))) {
                return .refused(options.topicNotAllowedReason)
            }
            return .topic(topic)
        }
    }

    /// Turns the outcome into a verdict with the ids Apple would send.
    private func verdict(for status: TokenStatus, apnsID: String?, context: DecisionContext) -> Verdict {
        // A client's id is echoed as it came; a made one stays bits until its text is read.
        let apnsID = apnsID.map(MessageID.text) ?? apnsIDs.next()
        guard case .deliverable = status else { return verdict(for: status, apnsID: apnsID, uniqueID: nil) }
        return .accepted(apnsID: apnsID, uniqueID: context.environment == .sandbox ? uniqueIDs.next() : nil)
    }

    private func verdict(for status: TokenStatus, apnsID: MessageID, uniqueID: MessageID?) -> Verdict {
        switch status {
        case .deliverable:
            return .accepted(apnsID: apnsID, uniqueID: uniqueID)
        case .refused(let reason, let timestamp):
            // A 410 always carries a time; "now" stands in when no rule supplied one.
            let stamp = reason.carriesTimestamp ? timestamp ?? clock.millisecondsSince1970 : nil
            return .rejected(reason: reason, apnsID: apnsID, timestamp: stamp)
        }
    }
}

/// The decision on one HTTP/2 push: the verdict, the request as routed (what records and
/// scenario rules read), and what the journal records beside it.
package struct PushAssessment: Sendable, Equatable {
    package var verdict: Verdict
    package var request: PushRequest
    package var diagnoses: [Diagnosis]

    package init(verdict: Verdict, request: PushRequest, diagnoses: [Diagnosis]) {
        self.verdict = verdict
        self.request = request
        self.diagnoses = diagnoses
    }
}
