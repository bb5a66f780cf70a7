import MockAPNsCore
import MockAPNsScenario

/// One request on its way through the answer flow every endpoint shares, on every transport:
/// route → authenticate → decide → answer → record. The server's mouth (its HTTP/2 bridge,
/// its web push HTTP/1.1 handler) routes and authenticates, `AnswerFlow` decides (through the
/// scenario) and answers through the transport's writer; what differs per endpoint (device
/// pushes, broadcasts, channel management, web push, and whatever comes next) is only this
/// conformance: its facts, its answer's shape, its decision core and its record.
///
/// One object per request, living until its record is written (after a scripted delay, or
/// once a `closeAfterBytes` cut is known); it lives on the connection's event loop.
package protocol ProviderExchange: AnyObject {
    /// How every answer to the request is shaped (which IDs it carries, extra headers).
    var shape: ResponseShape { get }
    /// The request's facts for the scenario's rules; read only when it has rules.
    func scenarioFacts() -> ScenarioRequest
    /// The decision core's answer. Called at most once, and not when a rule decided first.
    func decide() -> CoreAnswer
    /// Writes the request's one record, from what was sent (or done instead). Called once.
    func record(_ sent: SentAnswer)
}
