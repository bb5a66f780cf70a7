@testable import MockAPNsCore
@testable import MockAPNsVerdicts
@testable import MockAPNsJournal
@testable import MockAPNsLegacy

/// Journal events written the way the server records them, with time moving on between
/// them: what the judge tests feed `ProviderJudge`.
struct JournalScript {
    static let team = "TEAM00000A"
    static let key = "SANDBOX001"
    static let subject = "UID=com.example.app,CN=Apple Development IOS Push Services: com.example.app"

    private(set) var events: [JournalEvent] = []
    /// Milliseconds since 1970 on the server clock, and real (monotonic) time in nanoseconds.
    var wall: Int64 = 1_767_225_600_000
    var monotonic: UInt64 = 5_000_000_000
    /// When set, the server clock stays put while real time passes.
    var pinned = false

    /// How a notification authenticated.
    enum Credentials {
        case certificate
        case token(issuedAt: Int64)
        case rejected(Reason)
    }

    /// Lets `milliseconds` of real time pass.
    mutating func wait(_ milliseconds: Int64) {
        monotonic += UInt64(milliseconds) * 1_000_000
        if !pinned { wall += milliseconds }
    }

    /// Moves the server clock on by `milliseconds` without real time passing (a pinned clock advanced).
    mutating func advanceClock(_ milliseconds: Int64) {
        wall += milliseconds
    }

    private mutating func append(_ kind: JournalEventKind, connection: UInt64?, stream: Int32? = nil) {
        events.append(JournalEvent(
            sequence: UInt64(events.count + 1), wallTimeMilliseconds: wall, monotonicNanoseconds: monotonic,
            connectionID: connection, streamID: stream, kind: kind
        ))
    }

    /// The sequence the next event gets.
    var nextSequence: UInt64 { UInt64(events.count + 1) }

    mutating func open(_ connection: UInt64, certificate: Bool = false, transport: Transport = .http2) {
        append(.connectionOpened(transport: transport, peer: "127.0.0.1:\(40000 + connection)"), connection: connection)
        append(.tlsEstablished(JournalTLSSession(
            version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256", serverName: "localhost", offeredALPN: ["h2"],
            negotiatedALPN: "h2", clientCertificateSubject: certificate ? Self.subject : nil, topics: [], environments: [],
            certificateTrusted: certificate ? true : nil, resumed: false
        )), connection: connection)
    }

    mutating func close(_ connection: UInt64, by side: ClosingSide, transport: Transport = .http2) {
        append(.connectionClosed(transport: transport, closedBy: side, reason: nil), connection: connection)
    }

    /// One notification and the answer it got; returns its sequence.
    @discardableResult
    mutating func push(
        _ connection: UInt64, token: String = "a1b2c3d4" + String(repeating: "0", count: 56), topic: String = "com.example.app",
        payload: String = #"{"aps":{"alert":"hi"}}"#, apnsID: String? = nil, priority: Int? = nil,
        credentials: Credentials = .token(issuedAt: 1_767_225_000), answer: SentAnswer, stream: Int32 = 1,
        handlingMicroseconds: Int = 80, problem: String? = nil
    ) -> UInt64 {
        let authentication: JournalAuthentication
        switch credentials {
        case .certificate: authentication = JournalAuthentication(kind: "certificate")
        case .token(let issuedAt):
            authentication = JournalAuthentication(kind: "providerToken", teamID: Self.team, keyID: Self.key, issuedAt: issuedAt)
        case .rejected(let reason): authentication = JournalAuthentication(kind: "rejected", refusal: reason)
        }
        var record = NotificationRecord(
            transport: .http2, deviceToken: token, topic: topic, pushType: "alert", requestAPNsID: apnsID, priority: priority,
            payload: Array(payload.utf8), authentication: authentication, answer: answer
        )
        record.handlingMicroseconds = handlingMicroseconds
        record.problem = problem
        let sequence = nextSequence
        append(.notification(record), connection: connection, stream: stream)
        return sequence
    }

    /// A legacy gateway notification (command 1, certificate credentials) and what it came
    /// to, as the gateway records it; returns its sequence.
    @discardableResult
    mutating func legacyPush(
        _ connection: UInt64, token: String = "a1b2c3d4" + String(repeating: "0", count: 56),
        payload: String = #"{"aps":{"alert":"hi"}}"#, identifier: UInt32 = 1, answer: SentAnswer = SentAnswer(accepted: true),
        dropped: Bool = false
    ) -> UInt64 {
        var record = NotificationRecord(
            transport: .legacy, deviceToken: token, topic: "com.example.app", pushType: "alert", legacyIdentifier: identifier,
            payload: Array(payload.utf8), authentication: JournalAuthentication(kind: "certificate"), answer: answer,
            dropped: dropped
        )
        record.legacyCommand = LegacyCommand.enhanced.rawValue
        let sequence = nextSequence
        append(.notification(record), connection: connection)
        return sequence
    }

    /// What the gateway records for bytes that start no frame, such as the tail of a payload
    /// whose length field counted characters rather than UTF-8 bytes: a record without a
    /// token, naming the byte read as a command, answered with `answer` or `dropped` after an
    /// earlier failure.
    mutating func legacyUnparseable(_ connection: UInt64, byte: UInt8, answer: SentAnswer, dropped: Bool = false) {
        var record = NotificationRecord(
            transport: .legacy, deviceToken: "", topic: "com.example.app", payload: [],
            authentication: JournalAuthentication(kind: "certificate"), answer: answer, dropped: dropped
        )
        record.legacyCommand = byte
        record.problem = LegacyFrameProblem.unknownCommand(byte).description
        append(.notification(record), connection: connection)
    }

    /// The diagnosis the HTTP/2 listener records for a stream opened after its GOAWAY.
    mutating func streamAfterGoAway(_ connection: UInt64, stream: Int32, last: Int32) {
        append(.diagnosis(code: .http2StreamAfterGoAway, message: "stream \(stream) after GOAWAY",
                          figures: [JournalFigure("stream", Int64(stream)), JournalFigure("lastStreamID", Int64(last))]),
               connection: connection, stream: stream)
    }

    /// Every finding the judge makes while reading the script, and its report at the end.
    func judged(_ settings: VerdictSettings = VerdictSettings()) -> (verdicts: [ProviderVerdict], report: VerdictReport) {
        var judge = ProviderJudge(settings: settings)
        var verdicts: [ProviderVerdict] = []
        for event in events { verdicts += judge.consume(event) }
        return (verdicts, judge.report())
    }
}
