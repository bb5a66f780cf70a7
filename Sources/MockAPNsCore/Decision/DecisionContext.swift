/// What the decision core needs to know about one request besides the request itself: where
/// the server runs and who is asking. Server-wide state (the registry, the clock) lives in
/// `PushDecider`.
package struct DecisionContext: Sendable, Equatable {
    /// The environment this listener plays (sandbox or production).
    package var environment: APNsEnvironment
    /// The connection's credentials, as the authentication layer judged them.
    package var authentication: AuthenticationResult

    package init(environment: APNsEnvironment, authentication: AuthenticationResult) {
        self.environment = environment
        self.authentication = authentication
    }
}
