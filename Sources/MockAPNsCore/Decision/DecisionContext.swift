/// What the decision core needs to know besides the request: where the server runs, who is
/// asking, and what time it is.
public struct DecisionContext: Sendable {
    /// The environment this listener plays (sandbox or production).
    public var environment: APNsEnvironment
    /// The connection's credentials, as the authentication layer judged them.
    public var authentication: AuthenticationResult
    /// The only source of "now".
    public var clock: ServerClock

    public init(environment: APNsEnvironment, authentication: AuthenticationResult, clock: ServerClock) {
        self.environment = environment
        self.authentication = authentication
        self.clock = clock
    }
}
