import MockAPNsFleet
import MockAPNsBroadcast
import MockAPNsControl
import MockAPNsCore
import MockAPNsDelivery
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsSessions
import MockAPNsVerdicts
import MockAPNsWebPush

/// The server as one session's control token sees it: the session's registry, scenario and
/// rules, broadcast channels and web push subscriptions, its records in the journal (since its
/// last clear), and the verdicts on its providers. What belongs to the whole server (the clock,
/// the capture, the delivery model, metrics) the routes refuse to a session's token before
/// asking here, so those members answer as the server does.
final class SessionControlView: ControlledServer {
    private let server: MockAPNsServer
    private let scope: SessionScope

    init(server: MockAPNsServer, scope: SessionScope) {
        self.server = server
        self.scope = scope
        scope.touch(at: .now())
    }

    var sessionID: String? { scope.id }
    func sessionID(forControlToken token: String) -> String? { server.sessionID(forControlToken: token) }
    func session(_ id: String) -> (any ControlledServer)? { id == scope.id ? self : nil }

    func scoped(_ filter: NotificationFilter) -> NotificationFilter {
        var scoped = filter
        scoped.session = scope.id
        scoped.afterSequence = max(filter.afterSequence ?? 0, scope.journalStartSequence)
        return scoped
    }

    func createSession(_ request: SessionRequest) throws(ControlAPIError) -> SessionCreated {
        throw ControlAPIError("a session's control token cannot make sessions; use the server's", status: .forbidden)
    }

    func endSession(_ id: String) -> Bool { id == scope.id && server.endSession(id) }
    var sessionList: [SessionSummary] { [server.summary(of: scope)].compactMap { $0 } }

    var registry: DeviceRegistry { scope.registry }
    var journal: Journal { server.journal }
    var clock: ServerClock { server.clock }
    var fleet: FleetStore? { server.fleet }
    var channels: ChannelRegistry { scope.channels }
    var broadcastOptions: BroadcastOptions { server.broadcastOptions }
    var primaryEnvironment: APNsEnvironment { server.primaryEnvironment }
    var controlAccessPolicy: ControlAccessPolicy { server.controlAccessPolicy }
    var boundPortsJSON: String? { server.boundPortsJSON }
    var credentialsDirectory: String { server.credentialsDirectory }
    var scenarioEngine: ScenarioEngine { scope.scenarios.current }
    var addedScenarioRules: AddedScenarioRules { scope.scenarios.added }
    var deliveryOptions: DeliveryOptions { server.deliveryOptions }
    var deliveryDerivedThrough: UInt64? { server.deliveryDerivedThrough }

    /// Puts the session back as it was made: its registry emptied, the scenario it was made
    /// with running from the start (one loaded since is put away) with its registry entries
    /// applied again, its added rules removed, its journal view cleared. The server's clock and
    /// everything shared stay as they are.
    func reset() -> ServerReset {
        let journalEvents = server.journal.notifications(matching: scoped(.all)).count
        clearJournal()
        let registryCleared = scope.registry.removeAll()
        let previous = scope.scenarios.current
        scope.scenarios.replace(with: scope.initialScenario)
        let addedRules = scope.scenarios.added.removeAll()
        let channelsCleared = scope.channels.reset()
        for channel in server.configuration.broadcast.channels { scope.channels.insert(channel) }
        return ServerReset(
            journalEvents: journalEvents, registryTokens: registryCleared.tokens, feedbackEntries: registryCleared.feedbackEntries,
            broadcastChannels: channelsCleared, scenario: previous.scenario.name, scenarioRequests: previous.requestCount,
            scenarioFirings: previous.firingCounts.reduce(0, +), scenarioState: previous.currentState, seed: previous.seed,
            clockMilliseconds: server.clock.millisecondsSince1970, clockFixed: server.clock.isFixed,
            webPushSubscriptions: server.forgetWebPushSubscriptions(of: scope), addedRules: addedRules
        )
    }

    func replaceScenario(jsonText: String) throws(ScenarioDecodingError) {
        scope.scenarios.replace(with: try Scenario.decode(jsonText: jsonText))
    }

    /// Starts the session's view of the journal after the newest event; other sessions' and
    /// the server's records stay.
    func clearJournal() {
        scope.clearJournal(through: server.journal.statistics.lastSequence)
    }

    func journalCapture() -> [UInt8] { server.journalCapture() }

    /// The server's verdicts, on the session's providers alone: its key's team, its
    /// certificate's subject.
    func verdictReport() async -> VerdictReport? {
        guard var report = await server.verdictReport(), let team = scope.teamID else { return nil }
        report.providers = report.providers.filter { provider in
            switch provider.provider {
            case .providerToken(let teamID, _): teamID == team
            case .certificate(let subject): subject.split(separator: ",").contains { $0 == "OU=\(team)" }
            case .vapidKey, .unidentified: false
            }
        }
        return report
    }

    func metricsText() async -> String { await server.metricsText() }
    func legacyShutdown() async { await server.legacyShutdown() }
    func catchUpDelivery() async { await server.catchUpDelivery() }
    func setDevice(_ token: String, online: Bool) async throws -> DeviceDeliveryState { try await server.setDevice(token, online: online) }
    func device(_ token: String) async throws -> DeviceDeliveryState { try await server.device(token) }
    func devices() async throws -> [DeviceDeliveryState] { try await server.devices() }
    func deliveryLog(_ id: String) async throws -> [DeliveryTimeline] { try await server.deliveryLog(id) }

    // The session's own web push subscriptions: made with its token, changed only through it.
    func makeWebPushSubscription(applicationServerKey: String) throws(WebPushSubscriptionError) -> WebPushSubscriptionInfo {
        try server.makeWebPushSubscription(applicationServerKey: applicationServerKey, session: scope.id)
    }
    var webPushSubscriptionList: [WebPushSubscriptionInfo] {
        let own = Set(server.webPushSubscriptions.all.filter { $0.session == scope.id }.map(\.id))
        return server.webPushSubscriptionList.filter { own.contains($0.id) }
    }
    private func owns(_ id: String) -> Bool { server.webPushSubscriptions.subscription(id: id)?.session == scope.id }
    func expireWebPushSubscription(_ id: String) -> Bool { owns(id) && server.expireWebPushSubscription(id) }
    func revokeWebPushSubscription(_ id: String) -> Bool { owns(id) && server.revokeWebPushSubscription(id) }
    func forgetWebPushSubscription(_ id: String) -> Bool { owns(id) && server.forgetWebPushSubscription(id) }
}
