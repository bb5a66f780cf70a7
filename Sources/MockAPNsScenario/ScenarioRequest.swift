import MockAPNsWire
import MockAPNsCore
import MockAPNsBroadcast
/// The facts about one request that rules can match, read the same way from an HTTP/2
/// stream (before Apple's header rules, so even malformed requests can be matched) and from
/// a legacy frame.
package struct ScenarioRequest: Sendable {
    package var transport: Transport
    /// The token from `/3/device/<token>`, or the legacy frame's token in hex.
    package var deviceToken: String?
    /// `apns-topic`, or on the legacy gateway the certificate's topic.
    package var topic: String?
    /// `apns-push-type` as sent.
    package var pushType: String?
    /// `apns-priority` as sent, if it is a number.
    package var priority: Int?
    /// The payload bytes (a legacy frame's, in its connection's arena).
    package var payload: SharedBytes
    /// The payload's true size (an HTTP/2 body may be stored cut short).
    package var payloadSize: Int
    /// The request's one examination of its payload, when its mouth made it keeping the JSON
    /// value (`PayloadJSON(_:keepingValue:)`): payload matches read that value.
    package var payloadJSON: PayloadJSON?
    package var authentication: AuthenticationResult
    /// `apns-channel-id` as sent (broadcasts and channel management requests).
    package var channelID: String?
    /// The channel management operation the method and path ask for (management listener only).
    package var channelOperation: ChannelOperation?

    package init(
        transport: Transport,
        deviceToken: String?,
        topic: String?,
        pushType: String?,
        priority: Int?,
        payload: [UInt8],
        payloadSize: Int? = nil,
        authentication: AuthenticationResult
    ) {
        self.init(transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority,
                  payloadBytes: SharedBytes(payload), payloadSize: payloadSize, authentication: authentication)
    }

    package init(
        transport: Transport,
        deviceToken: String?,
        topic: String?,
        pushType: String?,
        priority: Int?,
        payloadBytes payload: SharedBytes,
        payloadSize: Int? = nil,
        authentication: AuthenticationResult
    ) {
        self.transport = transport
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.payload = payload
        self.payloadSize = payloadSize ?? payload.count
        self.authentication = authentication
    }

    /// The facts of an HTTP/2 request, from its head; `payloadJSON` is its body's one
    /// examination, when the caller made it.
    package init(
        http2 head: RequestHead, body: [UInt8], bodyLength: Int? = nil, authentication: AuthenticationResult,
        payloadJSON: PayloadJSON? = nil
    ) {
        // The token read from the path's bytes: the one string made of the path.
        let token = head.withBytes(of: .path) { HTTP2RequestValidator.deviceToken(inPath: $0).map(HTTPHeader.text) } ?? nil
        self.init(transport: .http2, deviceToken: token, topic: head[.apnsTopic], pushType: head[.apnsPushType],
                  priority: head[.apnsPriority].flatMap { Int($0) },
                  payload: body, payloadSize: bodyLength, authentication: authentication)
        self.channelID = head[.apnsChannelID]
        self.payloadJSON = payloadJSON
    }

    /// The facts of an HTTP/2 request of `headers` (tests and tools that start from a list).
    package init(http2 headers: [HTTPHeader], body: [UInt8], bodyLength: Int? = nil, authentication: AuthenticationResult) {
        self.init(http2: RequestHead(headers), body: body, bodyLength: bodyLength, authentication: authentication)
    }

    /// The facts of a channel management request: its channel id header and the operation
    /// its method and path ask for.
    package init(channelManagement head: RequestHead, body: [UInt8], authentication: AuthenticationResult) {
        self.init(transport: .channelManagement, deviceToken: nil, topic: nil, pushType: nil, priority: nil,
                  payload: body, authentication: authentication)
        self.channelID = head[.apnsChannelID]
        self.channelOperation = ChannelManagementRoute.resolve(method: head[.method], path: head[.path]).operation
    }

    /// The facts of a legacy notification. Legacy frames name no topic: the certificate's
    /// subject topic stands in, as it is where the notification goes.
    package init(legacy request: PushRequest, authentication: AuthenticationResult) {
        var topic = request.topic
        if topic == nil, case .certificate(_, let defaultTopic, _) = authentication {
            topic = defaultTopic
        }
        self.init(transport: request.transport, deviceToken: request.deviceToken, topic: topic,
                  pushType: request.pushType?.rawValue, priority: request.priority?.rawValue,
                  payloadBytes: request.payload, authentication: authentication)
    }

    /// These facts with the topic and push type the decision core routes the request to
    /// when it sent none (`PushDecider.route(_:context:)`): a single-topic certificate's
    /// topic, the push type a topic suffix implies. A push type sent but not understood is
    /// left as sent.
    package func routed(by decider: PushDecider, context: DecisionContext) -> ScenarioRequest {
        guard topic == nil || pushType == nil else { return self }
        let sentType = pushType.flatMap(PushType.init(rawValue:))
        guard pushType == nil || sentType != nil else { return self }
        let route = decider.route(topic: topic, pushType: sentType, transport: transport, context: context)
        var routed = self
        routed.topic = route.topic
        routed.pushType = route.pushType?.rawValue
        return routed
    }

}

/// A request's payload as JSON for the rules with a payload match, however many look (before
/// validation and after): the value its one examination kept (`ScenarioRequest.payloadJSON`),
/// shared with the decision core's payload rules. A request whose mouth kept none (the legacy
/// gateway, a tool) has its payload examined when the first such rule looks, once per
/// decision. A value that lives for one decision, so it costs nothing when no rule looks.
struct ParsedPayload {
    private let request: ScenarioRequest
    private var parsed: JSONValue??

    init(_ request: ScenarioRequest) {
        self.request = request
    }

    mutating func value() -> JSONValue? {
        if let parsed { return parsed }
        let json = request.payloadJSON.flatMap { $0.keepsValue ? $0 : nil } ?? PayloadJSON(request.payload, keepingValue: true)
        parsed = .some(json.value)
        return json.value
    }
}

/// One connection as the scenario sees it: its protocol and its number.
package struct ScenarioConnection: Sendable, Equatable {
    package var transport: Transport
    /// 1 for the first connection of this protocol since the scenario was loaded.
    package var index: Int
    /// Requests this connection has carried so far.
    package var requestCount: Int = 0

    package init(transport: Transport, index: Int) {
        self.transport = transport
        self.index = index
    }
}

/// A request's numbers in each count, all starting at 1.
package struct ScenarioRequestNumbers: Sendable, Equatable {
    package var global: Int
    package var connection: Int
    package var token: Int

    package init(global: Int, connection: Int, token: Int) {
        self.global = global
        self.connection = connection
        self.token = token
    }
}
