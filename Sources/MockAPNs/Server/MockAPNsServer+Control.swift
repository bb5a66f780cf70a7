import MockAPNsBroadcast
import MockAPNsControl
import MockAPNsCore
import MockAPNsDelivery
import MockAPNsJournal
import MockAPNsSessions
import MockAPNsFleet

/// The control API works on the server through `ControlledServer`; most of what it asks is
/// the server's own API, the rest is read from the configuration here.
extension MockAPNsServer: ControlledServer {
    package var broadcastOptions: BroadcastOptions { configuration.broadcast.options }
    package var primaryEnvironment: APNsEnvironment { configuration.environment.primary }
    package var controlAccessPolicy: ControlAccessPolicy { configuration.control.accessPolicy(token: controlToken) }
    package var boundPortsJSON: String? { ports?.json }
    package var credentialsDirectory: String { DevelopmentCredentials.absolute(configuration.certificateDirectory) }

    // MARK: Sessions

    package var fleet: FleetStore? { fleetLink?.store }

    /// The whole server's view is no session's.
    package var sessionID: String? { nil }

    package func sessionID(forControlToken token: String) -> String? {
        sessions.scope(controlToken: token)?.id
    }

    package func session(_ id: String) -> (any ControlledServer)? {
        sessions.scope(id: id).map { SessionControlView(server: self, scope: $0) }
    }

    /// The server sees every record.
    package func scoped(_ filter: NotificationFilter) -> NotificationFilter { filter }

    package func createSession(_ request: SessionRequest) throws(ControlAPIError) -> SessionCreated {
        let idleTimeout: Duration? = switch request.idleSeconds {
        case nil: Self.defaultSessionIdleTimeout
        case 0?: nil
        case let seconds?: .seconds(seconds)
        }
        let session: MockAPNsSession
        do {
            session = try createSession(topics: request.topics ?? ["com.example.app"], idleTimeout: idleTimeout, scenario: request.scenario)
        } catch {
            throw ControlAPIError(error.description, parameter: "topics")
        }
        guard let scope = sessions.scope(id: session.id), let summary = summary(of: scope) else {
            throw ControlAPIError("the session ended as it was made", status: .internalServerError)
        }
        return SessionCreated(
            summary: summary, providerKeyPEM: session.providerKeyPEM, certificatePEM: session.certificatePEM,
            certificateKeyPEM: session.certificateKeyPEM, certificateUnavailable: session.certificateUnavailable,
            controlToken: session.controlToken
        )
    }

    package var sessionList: [SessionSummary] { sessions.all.compactMap(summary(of:)) }

    /// What the control API says of a session (no secret); `nil` for the default one.
    func summary(of scope: SessionScope) -> SessionSummary? {
        guard let id = scope.id, let team = scope.teamID, let key = scope.keyID else { return nil }
        return SessionSummary(
            id: id, teamID: team, keyID: key, topics: scope.topics,
            idleSeconds: scope.idleTimeout.map { $0.nanoseconds / 1_000_000_000 },
            createdAtMilliseconds: scope.createdAtMilliseconds, scenario: scope.scenarios.current.scenario.name
        )
    }
}
