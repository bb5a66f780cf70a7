import PostgresNIO

/// The fleet's tables, made by whichever replica comes first (under an advisory lock, so
/// replicas starting together do not race on them).
///
/// - `mockapns_changes`: the change log, numbered by PostgreSQL. Writers append under an
///   advisory lock, so numbers commit in order and a reader reading past a number never
///   skips one committed later.
/// - `mockapns_record_blocks`: every replica's records, in the blocks its outbox packed them in
///   (`JournalEventBlock`), keyed by the run that wrote them and the block's first sequence, so
///   shipping a block twice (after an outage) stores it once. Blocks are numbered as they
///   arrive (appended under the advisory lock, so in order): a record's number in the fleet is
///   its block's number and its place in the block (`FleetStore.fleetSequence`), which grows
///   with every record that arrives later, whatever replica it comes from.
///
/// - `mockapns_session_use`: when each session was last used on any replica (milliseconds
///   since 1970, real time), so a session in use through one replica is not ended as idle by
///   another.
///
/// A journal clear is a change (`FleetChange.Kind.journalCleared`): the fleet's reads skip
/// what was recorded before the newest clear that covers it.
enum FleetSchema {
    /// The advisory lock of the schema's creation and of appends to the change log.
    static let lockKey: Int64 = 0x6D6F_636B_6170_6E73  // "mockapns"

    /// The channel replicas LISTEN on; a change's number is the payload.
    static let changesChannel = "mockapns_changes"

    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS mockapns_changes (
            id bigserial PRIMARY KEY,
            origin text NOT NULL,
            kind text NOT NULL,
            session text,
            body text NOT NULL,
            made_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS mockapns_record_blocks (
            id bigserial UNIQUE,
            run text NOT NULL,
            first_seq bigint NOT NULL,
            last_seq bigint NOT NULL,
            replica text NOT NULL,
            earliest bigint NOT NULL,
            latest bigint NOT NULL,
            block bytea NOT NULL,
            PRIMARY KEY (run, first_seq)
        )
        """,
        "CREATE INDEX IF NOT EXISTS mockapns_record_blocks_by_time ON mockapns_record_blocks (latest)",
        """
        CREATE TABLE IF NOT EXISTS mockapns_session_use (
            session text PRIMARY KEY,
            used_at bigint NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS mockapns_changes_by_kind ON mockapns_changes (kind, session)",
    ]

    /// Makes the tables if they are not there.
    static func create(on connections: FleetConnections, logger: Logger) async throws {
        try await connections.with { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        }
    }
}
