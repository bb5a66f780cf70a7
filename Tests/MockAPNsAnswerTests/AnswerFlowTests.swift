import Logging
import MockAPNsAnswer
import MockAPNsConnections
import MockAPNsCore
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsWire
import NIOCore
import Synchronization
import XCTest

/// The one answer flow with no transport under it: a writer that keeps what it is handed
/// shows what the flow decides for every transport (which answer, in which shape, which fault,
/// when the core's change is made, what is recorded), with no channel, stream or socket. The
/// server's wire tests (HTTP/2, web push over both versions, channel management) show each
/// writer.
final class AnswerFlowTests: XCTestCase {
    /// The answer a channel management create gets from its core: 201 and the new channel's id.
    static let created = CoreAnswer(
        verdict: .accepted(apnsID: "request-1", uniqueID: nil),
        acceptance: Acceptance(status: 201, fields: [HTTPHeader(name: "apns-channel-id", value: "channel-1")])
    )
    static let managementShape = ResponseShape(
        extraHeaders: [HTTPHeader(name: "apns-request-id", value: "request-1")], includesAPNsID: false)

    func testTheCoresAcceptanceIsRenderedInTheShapeAndItsChangeMadeOnceWritten() {
        let writer = KeepingWriter()
        let committed = Counter()
        let exchange = KeptExchange(shape: Self.managementShape, core: Self.committing(Self.created, committed))
        flow(writer).answer(exchange, on: 1, apnsID: nil)

        XCTAssertEqual(writer.written.map(\.answer), [ProviderAnswer(status: 201, headers: [
            HTTPHeader(name: "apns-request-id", value: "request-1"), HTTPHeader(name: "apns-channel-id", value: "channel-1"),
        ], body: nil)])
        XCTAssertEqual(committed.value, 1, "the create is made once its answer is out")
        XCTAssertEqual(exchange.recorded.map(\.status), [201])
        XCTAssertEqual(exchange.recorded.first?.apnsID, nil, "the shape carries no apns-id")
        XCTAssertEqual(exchange.recorded.first?.accepted, true)
    }

    func testAnAnswerThatDoesNotGoOutMakesNoChange() {
        let writer = KeepingWriter()
        writer.delivers = false
        let committed = Counter()
        let exchange = KeptExchange(shape: Self.managementShape, core: Self.committing(Self.created, committed))
        flow(writer).answer(exchange, on: 1, apnsID: nil)

        XCTAssertEqual(committed.value, 0)
        XCTAssertEqual(exchange.recorded.map(\.status), [nil])
        XCTAssertEqual(exchange.recorded.first?.undelivered, "not written")
    }

    func testARuleThatRejectsReplacesTheCoresAnswerAndItsChange() {
        let writer = KeepingWriter()
        let committed = Counter()
        let exchange = KeptExchange(shape: Self.managementShape, core: Self.committing(Self.created, committed))
        let scenario = Scenario(name: "refuse", rules: [ScenarioRule(name: "no", action: .reject(.badRequestParams, timestamp: nil))])
        flow(writer, scenario: scenario).answer(exchange, on: 1, apnsID: nil)

        XCTAssertEqual(writer.written.map(\.answer), [ProviderAnswer(
            status: 400,
            headers: [HTTPHeader(name: "content-type", value: "application/json"), HTTPHeader(name: "apns-request-id", value: "request-1")],
            body: Array(#"{"reason":"BadRequestParams"}"#.utf8)
        )])
        XCTAssertEqual(committed.value, 0, "a refused create makes no channel")
        XCTAssertEqual(exchange.recorded.first?.reason, .badRequestParams)
        XCTAssertEqual(exchange.recorded.first?.rule, "no")
    }

    func testAFaultIsTheWritersWithTheUsualAnswerAtHand() {
        let writer = KeepingWriter()
        let committed = Counter()
        let exchange = KeptExchange(shape: Self.managementShape, core: Self.committing(Self.created, committed))
        let scenario = Scenario(name: "fault", rules: [ScenarioRule(name: "lower", action: .fault(.lowerMaxConcurrentStreams(3)))])
        flow(writer, scenario: scenario).answer(exchange, on: 7, apnsID: nil)

        XCTAssertEqual(writer.faults.map(\.fault), [.lowerMaxConcurrentStreams(3)])
        XCTAssertEqual(writer.faults.first?.usual?.answer.status, 201, "the fault keeps the core's verdict")
        XCTAssertEqual(writer.written.map(\.answer.status), [], "writing it is the writer's call")
        XCTAssertEqual(exchange.recorded.map(\.rule), ["lower"], "the record names the rule")
    }

    func testAWebPushAnswerCarriesNoAPNsIDAndTheAcceptedStatus() {
        let writer = KeepingWriter()
        // Web push's shape (the server's `WebPushFlow.shape`).
        let webPush = ResponseShape(includesAPNsID: false, acceptedStatus: 201)
        let exchange = KeptExchange(shape: webPush, core: CoreAnswer(verdict: .accepted(apnsID: "", uniqueID: nil)))
        flow(writer, environment: .sandbox).answer(exchange, on: 1, apnsID: "A0000000-0000-0000-0000-000000000001")

        XCTAssertEqual(writer.written.map(\.answer), [ProviderAnswer(status: 201, headers: [], body: nil)])
        XCTAssertEqual(exchange.recorded.map(\.status), [201])
        XCTAssertNil(exchange.recorded.first?.uniqueID)
    }

    func testTheRequestLimitEndsTheConnectionFromItsRequestAndGoesAwayOnce() {
        let writer = KeepingWriter()
        let scenario = Scenario(name: "limit", connection: ScenarioConnectionSettings(goAwayAfterRequests: 2))
        let answers = flow(writer, scenario: scenario)
        for stream in [1, 3, 5] as [Int32] {
            answers.answer(KeptExchange(shape: .push, core: CoreAnswer(verdict: .accepted(apnsID: "x", uniqueID: nil))), on: stream, apnsID: nil)
        }
        XCTAssertEqual(writer.endedAfter, [3, 5], "the request that reaches the limit, and every one after it")
        XCTAssertEqual(writer.wentAwayAfter, [2], "once")
    }

    // MARK: Helpers

    private func flow(
        _ writer: KeepingWriter, scenario: Scenario = Scenario(name: "none"), environment: APNsEnvironment = .production
    ) -> AnswerFlow<KeepingWriter> {
        let logger = Logger(label: "test")
        return AnswerFlow(
            writer: writer, scenarios: ScenarioSwitch(scenario: scenario, registry: DeviceRegistry(), logger: logger),
            connection: ScenarioConnection(transport: .http2, index: 1), environment: environment, clock: ServerClock(),
            generatedIDCase: .uppercase, logger: logger, recorder: ConnectionJournal(journal: nil, connectionID: 1)
        )
    }

    private static func committing(_ answer: CoreAnswer, _ counter: Counter) -> CoreAnswer {
        var answer = answer
        answer.commit = { counter.increment() }
        return answer
    }
}

/// A writer that keeps what it is handed, and writes (or fails to) at once.
private final class KeepingWriter: AnswerWriter {
    typealias Slot = Int32
    var delivers = true
    var written: [PreparedAnswer] = []
    var faults: [(fault: ScenarioFault, usual: PreparedAnswer?)] = []
    var endedAfter: [Int32] = []
    var wentAwayAfter: [Int] = []

    func stream(of slot: Int32) -> Int32? { slot }
    func unanswerable(_ slot: Int32) -> String? { nil }
    func endsConnection(after slot: inout Int32) { endedAfter.append(slot) }
    func goesAway(afterRequests limit: Int) { wentAwayAfter.append(limit) }
    func afterDelay(nanoseconds: Int64, _ body: @escaping () -> Void) { body() }
    func completion<Value: Sendable, Failure: Error>(
        _ body: @escaping (Result<Value, Failure>) -> Void
    ) -> (@Sendable (Result<Value, Failure>) -> Void)? {
        nil
    }

    func write(_ answer: PreparedAnswer, to slot: Int32, record: AnswerRecord) {
        written.append(answer)
        guard delivers else { return record(.nothing(undelivered: "not written")) }
        answer.commit?()
        record(answer.sent)
    }

    func carryOut(_ fault: ScenarioFault, garbage: [UInt8]?, on slot: Int32, usual: () -> PreparedAnswer?, record: AnswerRecord) {
        let answer = usual()
        faults.append((fault, answer))
        record(answer?.sent ?? .nothing())
    }
}

/// An exchange with a fixed core answer that keeps what it is asked to record.
private final class KeptExchange: ProviderExchange {
    let shape: ResponseShape
    let core: CoreAnswer
    var recorded: [SentAnswer] = []

    init(shape: ResponseShape, core: CoreAnswer) {
        self.shape = shape
        self.core = core
    }

    func scenarioFacts() -> ScenarioRequest {
        ScenarioRequest(transport: .http2, deviceToken: nil, topic: nil, pushType: nil, priority: nil, payload: [], authentication: .notRequired)
    }

    func decide() -> CoreAnswer { core }

    func record(_ sent: SentAnswer) { recorded.append(sent) }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
