// The server's API over the journal's readers (MockAPNsObservation): its metrics text and
// the verdict report.

extension MockAPNsServer {
    /// The server's metrics in the Prometheus text format, as `GET /metrics` serves them:
    /// notifications by protocol, status and reason; connections open and in total by
    /// listener and port; TLS handshake failures by cause; scenario actions fired by rule;
    /// journal events and drops; request handling time as a histogram; on a replica of a
    /// fleet, whether its PostgreSQL answers and what waits for it.
    public func metricsText() async -> String {
        await observation.metricsText(engine: scenarioEngine) + (fleetLink.map { Self.fleetMetrics($0.store.health) } ?? "")
    }
}
