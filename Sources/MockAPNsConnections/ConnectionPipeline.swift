import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import NIOCore
import MockAPNsScenario

/// Sets up every accepted connection the same way, whatever its protocol: the running
/// scenario may refuse the TLS handshake with an alert; otherwise the journal file's read
/// gate comes first (when the listener reads from providers), then TLS, then the journal's
/// connection recorder, then the guard of the connection's deadlines and reading pace, then
/// the protocol's own handler.
package enum ConnectionPipeline {
    /// Installs the handlers on `channel` (on its event loop).
    /// - Parameter protocolHandler: makes the protocol's handler from the scenario's view of
    ///   the connection and the connection's way into the journal, which every handler that
    ///   records shares, so the connection's events stay in order.
    package static func install(
        on channel: any Channel,
        transport: Transport,
        tls: OpenSSLContext,
        scenarios: ScenarioSwitch,
        journal: Journal?,
        guarding limits: ConnectionGuardHandler.Limits,
        listener: String,
        logger: Logger,
        protocolHandler: (ScenarioConnection, ConnectionJournal) -> any ChannelHandler
    ) throws {
        let operations = channel.pipeline.syncOperations
        let opening = scenarios.current.openConnection(transport)
        if let alert = opening.refusal {
            // The scenario refuses this handshake: an alert record instead of TLS.
            try operations.addHandler(TLSAlertRefusalHandler(alert: alert))
            return
        }
        let connectionID = journal?.nextConnectionID() ?? 0
        let recorder = ConnectionJournal(journal: journal, connectionID: connectionID)
        if let gate = limits.readGate {
            // Before TLS, so the handshake's own reads wait too.
            try operations.addHandler(ReadGateHandler(gate: gate, connectionID: connectionID))
        }
        try operations.addHandler(OpenSSLHandler(context: tls))
        if let journal {
            try operations.addHandler(JournalConnectionHandler(recorder: recorder, journal: journal, transport: transport))
        }
        try operations.addHandler(ConnectionGuardHandler(limits: limits, listener: listener, recorder: recorder, logger: logger))
        try operations.addHandler(protocolHandler(opening.connection, recorder))
    }
}
