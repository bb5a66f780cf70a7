import MockAPNsFleet
import MockAPNsBroadcast
import MockAPNsCore
import MockAPNsDelivery
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsVerdicts
import MockAPNsWebPush

/// What the control API works on: the running server, seen through what it offers. The
/// routes are thin: each reads its request, asks one of these, and writes the answer;
/// `MockAPNsServer` conforms, and a test may hand the API anything else that does.
package protocol ControlledServer: AnyObject, Sendable {
    /// The device registry every protocol shares.
    var registry: DeviceRegistry { get }
    /// The journal the routes read and wait on.
    var journal: Journal { get }
    /// The clock every rule reads.
    var clock: ServerClock { get }
    /// The broadcast channels.
    var channels: ChannelRegistry { get }
    /// The broadcast options channels are created with.
    var broadcastOptions: BroadcastOptions { get }
    /// The environment a channel is created in when the request names none.
    var primaryEnvironment: APNsEnvironment { get }
    /// Who the control API answers (Host, Origin, bearer token).
    var controlAccessPolicy: ControlAccessPolicy { get }
    /// The bound ports as the ports file's JSON; `nil` while the server is not listening.
    var boundPortsJSON: String? { get }
    /// The folder of the credentials the server serves (its CA, client certificates and
    /// provider keys), as an absolute path: where a client finds `ca.pem`.
    var credentialsDirectory: String { get }
    /// The running scenario's engine.
    var scenarioEngine: ScenarioEngine { get }
    /// The rules added on top of the running scenario.
    var addedScenarioRules: AddedScenarioRules { get }
    /// The delivery model's options.
    var deliveryOptions: DeliveryOptions { get }
    /// The sequence through which the delivery model has taken in every accepted notification
    /// (`nil` with the model off): one up to it with no recorded step was delivered on arrival.
    var deliveryDerivedThrough: UInt64? { get }

    // Sessions: the server's view answers for everything; a session's view (`session(_:)`)
    // answers for its own registry, scenario, rules, journal records and verdicts.
    /// The session this view is scoped to; `nil` for the whole server.
    var sessionID: String? { get }
    /// The fleet this server is a replica of (`serve --state`); `nil` when it serves alone.
    var fleet: FleetStore? { get }
    /// The session whose control token `token` is; `nil` when it is no session's.
    func sessionID(forControlToken token: String) -> String?
    /// The server as session `id` sees it; `nil` when no such session exists (now).
    func session(_ id: String) -> (any ControlledServer)?
    /// `filter` held to what this view may see: its session's records since its last clear.
    func scoped(_ filter: NotificationFilter) -> NotificationFilter
    /// Makes a session (`POST /v1/sessions`).
    func createSession(_ request: SessionRequest) throws(ControlAPIError) -> SessionCreated
    /// Ends a session; whether it existed.
    func endSession(_ id: String) -> Bool
    /// The sessions this view sees: every one for the server, its own for a session.
    var sessionList: [SessionSummary] { get }

    /// Puts the server back as its configuration started it.
    func reset() -> ServerReset
    /// Replaces the running scenario with the one `jsonText` holds.
    func replaceScenario(jsonText: String) throws(ScenarioDecodingError)
    /// Forgets every journal event (and the verdicts read from them).
    func clearJournal()
    /// The journal's connections as a pcapng capture (`MockAPNsServer.journalCapture()`).
    func journalCapture() -> [UInt8]
    /// The verdicts so far; `nil` when the server does not judge providers.
    func verdictReport() async -> VerdictReport?
    /// The Prometheus text of the server's metrics.
    func metricsText() async -> String
    /// Tells every legacy gateway connection the server is shutting down.
    func legacyShutdown() async
    /// Lets the delivery model take in everything the journal holds.
    func catchUpDelivery() async
    // The delivery questions throw only when the delivery model is off.
    /// Takes a device online or offline.
    func setDevice(_ token: String, online: Bool) async throws -> DeviceDeliveryState
    /// One device as the delivery model sees it.
    func device(_ token: String) async throws -> DeviceDeliveryState
    /// Every device the model holds something for.
    func devices() async throws -> [DeviceDeliveryState]
    /// The delivery timelines of the notifications an id names.
    func deliveryLog(_ id: String) async throws -> [DeliveryTimeline]

    /// Makes a web push subscription for an application server key, as a page's
    /// `pushManager.subscribe` does.
    func makeWebPushSubscription(applicationServerKey: String) throws(WebPushSubscriptionError) -> WebPushSubscriptionInfo
    /// Every web push subscription, oldest first.
    var webPushSubscriptionList: [WebPushSubscriptionInfo] { get }
    /// Marks a subscription expired; whether it existed.
    func expireWebPushSubscription(_ id: String) -> Bool
    /// Marks a subscription revoked; whether it existed.
    func revokeWebPushSubscription(_ id: String) -> Bool
    /// Forgets a subscription; whether it existed.
    func forgetWebPushSubscription(_ id: String) -> Bool
}
