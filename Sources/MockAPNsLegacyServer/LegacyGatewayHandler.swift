import MockAPNsSessions
import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MockAPNsScenario
import MockAPNsLegacy


/// How long a connection keeps reading after it answered a failure, before closing.
///
/// Closing a socket whose receive buffer still holds unread bytes makes the kernel send a TCP
/// reset, and a reset can destroy the error packet before the client reads it. A provider
/// typically has many notifications in flight when one fails, so the gateway first reads and
/// discards what the client already sent, then closes once the client has been quiet for a
/// moment (or a cap is reached, so a client that never stops cannot hold the connection).
package struct LegacyDrainPolicy: Sendable {
    /// Close after this long without receiving anything.
    var quietPeriod: TimeAmount = .milliseconds(200)
    /// Close after this long regardless.
    var maximumDuration: TimeAmount = .seconds(3)
    /// Close after discarding this many bytes regardless.
    var maximumBytes: Int = 16 * 1024 * 1024
}

/// What every gateway connection of one listener shares.
struct LegacyGatewayServices: Sendable {
    let decider: PushDecider
    let environment: APNsEnvironment
    let sessionOptions: LegacySessionOptions
    /// How long a frame may take from its first byte to its last (`timeouts.legacyFrameSeconds`).
    var frameTimeout: TimeAmount = .seconds(10)
    let drain: LegacyDrainPolicy
    let activity: LegacyActivityLog
    /// The running scenario, consulted for every notification.
    let scenarios: ScenarioSwitch
    /// The sessions a certificate may belong to; `decider` and `scenarios` are the default session's.
    var sessions: SessionDirectory? = nil
    let logger: Logger
    /// Where frames, notifications and diagnoses are recorded; `nil` records nothing.
    var journal: Journal? = nil
}

/// One legacy binary gateway connection, after TLS: bytes go through the codec
/// (`LegacyConnectionSession`), each notification through the shared decision core, and the
/// first failure is answered as Apple answered it (a 6-byte packet, or nothing), after which
/// the connection drains and closes.
///
/// ```
/// handshaking --certificate read--> open --failure or shutdown--> draining --quiet--> closing
///      \--certificate refused-----------------------------------/
/// ```
final class LegacyGatewayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        /// Waiting for TLS to complete; nothing arrives before that.
        case handshaking
        /// Judging notifications with these credentials.
        case open(AuthenticationResult)
        /// Answered (or refused the client); reading and discarding until the client is quiet.
        case draining
        /// Our close is under way.
        case closing
    }

    private let services: LegacyGatewayServices
    private var state: State = .handshaking
    private var session: LegacyConnectionSession
    private var report = LegacyConnectionReport()
    private var logger: Logger
    /// Whether a certificate was accepted: only such connections count towards churn.
    private var authenticated = false
    /// The credentials notifications were judged with; dropped ones are recorded with them.
    private var authentication = AuthenticationResult.unauthenticated
    /// Whether the answer reached the socket. A client that leaves before then never saw it.
    private var answerWritten = false
    private var quietTimer: Scheduled<Void>?
    private var drainDeadline: Scheduled<Void>?
    /// Runs while a frame is incomplete; armed with the count of frames decided before it began.
    private var frameDeadline: (timer: Scheduled<Void>, framesDecided: Int)?
    private var recorded = false

    /// The scenario's say on each notification, and on the connection's answer.
    private let scenario: LegacyScenarioJudge

    /// Records this connection's frames, notifications and diagnoses.
    private var journaling: LegacyJournaling
    /// Apple's rules over the registry of the connection's session.
    private var decider: PushDecider
    /// The connection's session, when its certificate is a session's: each read counts as its use.
    private var sessionScope: SessionScope?

    init(
        services: LegacyGatewayServices,
        scenarioConnection: ScenarioConnection = ScenarioConnection(transport: .legacy, index: 0),
        recorder: ConnectionJournal? = nil
    ) {
        self.services = services
        // Without a pipeline's recorder (a test of this handler alone), records go straight in.
        let recorder = recorder ?? ConnectionJournal(journal: services.journal, connectionID: 0)
        self.journaling = LegacyJournaling(recorder: recorder, decider: services.decider, environment: services.environment)
        self.session = LegacyConnectionSession(options: services.sessionOptions)
        self.decider = services.decider
        self.logger = services.logger
        self.scenario = LegacyScenarioJudge(
            scenarios: services.scenarios, connection: scenarioConnection, logger: services.logger,
            recordFault: { recorder.recordFault(stream: nil, description: $0) }
        )
    }

    // MARK: Lifecycle

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.remoteAddress {
            report.peer = "\(remote)"
            logger[metadataKey: "peer"] = "\(remote)"
        }
        // The TLS handshake's deadline is kept by the connection's guard (ConnectionGuardHandler).
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        if case .draining = state, !answerWritten, let response = report.errorResponse {
            // The client went away before the packet could even be written.
            diagnose(.closedWithoutReadingError(status: response.status, identifier: response.identifier))
        }
        state = .closing
        recordOnce()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            handshakeCompleted(context: context, session: completed.session)
        case let failed as TLSHandshakeFailed:
            report.failure = "TLS handshake refused: \(failed.reason)"
            TLSRefusalLog.handshakeRefused(failed, listener: "legacy gateway", logger: logger)
        case is LegacyShutdownEvent:
            shutDown(context: context)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let io = error as? IOError, io.errnoCode == ECONNRESET || io.errnoCode == EPIPE {
            // A client that closes its socket with our packet unread in its receive buffer
            // makes its kernel answer with a reset: the clearest sign the packet was lost.
            if case .draining = state, let response = report.errorResponse {
                diagnose(.closedWithoutReadingError(status: response.status, identifier: response.identifier))
            }
        } else if !(error is TLSError) {
            // TLS failures are reported by their own event, and the TLS handler closes.
            logger.notice("legacy gateway connection error: \(error)")
        }
        close(context: context)
    }

    // MARK: Handshake

    private func handshakeCompleted(context: ChannelHandlerContext, session tls: TLSSessionInfo) {
        report.tlsVersion = tls.version
        switch LegacyClientCertificate.read(tls, environment: services.environment) {
        case .success(let certificate):
            authenticated = true
            report.certificateSubject = certificate.identity.subject
            logger.info("legacy gateway connection", metadata: [
                "tls": "\(tls.version) \(tls.cipher)",
                "certificate": "\(certificate.identity.subject)",
                "topic": "\(certificate.defaultTopic)",
            ])
            if let scope = services.sessions?.scope(forTeam: certificate.identity.organizationalUnit), !scope.isDefault {
                // The certificate is a session's: its scenario, registry and records.
                decider = scope.decider
                journaling.decider = scope.decider
                journaling.session = scope.id
                scenario.scenarios = scope.scenarios
                sessionScope = scope
                scope.touch(at: .now())
            }
            authentication = certificate.authentication
            state = .open(certificate.authentication)
        case .failure(let refusal):
            logger.notice("legacy gateway: \(refusal)")
            report.failure = refusal.description
            report.closedSilently = true
            answerWritten = true
            beginDrain(context: context)
        }
    }

    // MARK: Notifications

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        switch state {
        case .handshaking, .closing:
            return
        case .open(let authentication):
            receive(bytes, authentication: authentication, context: context)
        case .draining:
            discard(bytes, context: context)
        }
    }

    /// Feeds the codec; every notification it decodes is judged by the decision core.
    private func receive(_ bytes: ByteBuffer, authentication: AuthenticationResult, context: ChannelHandlerContext) {
        sessionScope?.touch(at: .now())
        let decider = self.decider
        let decisionContext = DecisionContext(environment: services.environment, authentication: authentication)
        // Only the rare events are collected; accepted notifications are counted by the session.
        var failure: LegacyFailureCause?
        let journaling = self.journaling
        let scenario = self.scenario
        // A legacy frame names no topic and no push type, so every notification of the
        // connection goes where its certificate sends it: routed once per read, not per frame.
        let route = journaling.route(authentication)
        // Frames dropped after this read's failure: recorded after it, once it is answered.
        var droppedAfterFailure: [LegacySessionEvent] = []
        let action = bytes.withUnsafeReadableBytes { raw in
            session.receive(
                raw,
                decide: { request, payloadJSON in
                    scenario.judge(request, authentication: authentication) {
                        let decided = decider.assess(request, context: decisionContext, payloadJSON: payloadJSON)
                        // A loop, not `forEach(journaling.record)`: the method as a value would
                        // copy the journaling's references for every notification.
                        for diagnosis in decided.diagnoses { journaling.record(diagnosis) }
                        return decided.verdict
                    }
                },
                observe: { event in
                    if failure != nil, case .dropped = event {
                        droppedAfterFailure.append(event)
                        return
                    }
                    journaling.observe(event, authentication: authentication, route: route, scenario: scenario.lastJudged)
                    switch event {
                    // Recorded at once: a diagnosis comes just before the record of the frame it is about.
                    case .diagnosis(let diagnosis): diagnose(diagnosis)
                    case .failed(let cause, _): failure = cause
                    case .accepted(let notification):
                        if case .closeAfterBytes(let bytes)? = scenario.lastJudged?.fault {
                            logger.notice("legacy gateway: closing after \(bytes) more bytes, as rule \"\(scenario.lastJudged?.rule ?? "")\" asks (notification \(notification.identifier.map(String.init) ?? "of command 0"))")
                            WireFaults.closeAfter(bytes: bytes, on: context.channel)
                        }
                    case .dropped: break
                    }
                }
            )
        }
        if let failure {
            if case .frame(let error) = failure, error.status == nil { report.unparseableFrames += 1 }
            report.failure = Self.describe(failure)
            logger.notice("legacy gateway: \(report.failure ?? "")")
        }
        if let action {
            answerAsScenarioSays(action, failure: failure, authentication: authentication, context: context)
        } else if scenario.shutdownRequested, !session.isClosing {
            shutDown(context: context)
        }
        for event in droppedAfterFailure {
            journaling.observe(event, authentication: authentication)
        }
        watchIncompleteFrame(context: context)
    }

    // MARK: The frame deadline

    /// Starts the frame deadline when a frame has begun and not ended, keeps it while the
    /// same frame is still awaited, and stops it between frames.
    private func watchIncompleteFrame(context: ChannelHandlerContext) {
        guard session.incompleteFrame != nil else {
            frameDeadline?.timer.cancel()
            frameDeadline = nil
            return
        }
        let decided = session.framesDecided
        if let running = frameDeadline, running.framesDecided == decided { return }
        frameDeadline?.timer.cancel()
        let handler = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let timer = context.eventLoop.scheduleTask(in: services.frameTimeout) {
            handler.value.handler.frameDeadlinePassed(context: handler.value.context)
        }
        frameDeadline = (timer, decided)
    }

    /// A frame begun `frameTimeout` ago is still incomplete: it will not be finished. The
    /// connection is closed without a packet (there is no complete notification to name),
    /// and the journal says how much of the frame came.
    private func frameDeadlinePassed(context: ChannelHandlerContext) {
        frameDeadline = nil
        guard case .open = state, let frame = session.incompleteFrame else { return }
        let peer = report.peer ?? "unknown peer"
        let message = "legacy gateway connection from \(peer) closed: a command-\(frame.command) frame stopped at "
            + "\(frame.received) of the \(frame.awaited) bytes it needs, and a frame must arrive whole within "
            + "\(ConnectionTimeouts.describe(services.frameTimeout)) of its first byte"
        logger.notice("\(message)")
        report.failure = "frame incomplete after \(ConnectionTimeouts.describe(services.frameTimeout))"
        report.closedSilently = true
        journaling.timeout(code: .timeoutLegacyFrame, message: message, figures: [
            JournalFigure("command", Int64(frame.command)),
            JournalFigure("receivedBytes", Int64(frame.received)),
            JournalFigure("awaitedBytes", Int64(frame.awaited)),
        ])
        close(context: context)
    }

    /// Answers a failure, unless the scenario replaces the answer, delays it, or limits the
    /// bytes that may follow; then records the failure with what was sent.
    private func answerAsScenarioSays(
        _ action: LegacyConnectionAction, failure: LegacyFailureCause?,
        authentication: AuthenticationResult, context: ChannelHandlerContext
    ) {
        // The rule (if any) behind the failure: a frame the codec refused was never judged.
        var judged: (rule: String?, fault: AppliedFault?)?
        var reason: Reason?
        switch failure {
        case .decision(let refusal, _)?:
            judged = scenario.lastJudged
            reason = refusal
        case .frame(let error)?:
            // Command 0 gets no packet: the client is told no reason, and its record names none.
            reason = error.command == LegacyCommand.simple.rawValue ? nil : error.problem.reason
        case nil:
            break
        }
        if let budget = scenario.byteBudget {
            WireFaults.closeAfter(bytes: budget, on: context.channel)
        }
        let respond = { [self] in
            var sent: SentAnswer
            switch scenario.interception {
            case .answer(let replacement)?:
                answer(replacement, context: context)
                // A scripted status names no reason of Apple's; a close stands for a fault.
                sent = .legacy(replacement, reason: nil)
            case .fault(let fault, let garbage)?:
                LegacyScenarioJudge.apply(fault, garbage: garbage, applicationContext: context)
                sent = .nothing()
            case nil:
                answer(action, context: context)
                sent = .legacy(action, reason: reason)
            }
            // A byte budget counts from the packet's first byte: short of the whole packet,
            // the client read no answer.
            if let budget = scenario.byteBudget, sent.legacyPacket != nil, budget < LegacyErrorResponse.length {
                sent = .nothing(undelivered: "closeAfterBytes let \(max(budget, 0)) of the error packet's "
                    + "\(LegacyErrorResponse.length) bytes out: the client read no whole packet")
            }
            sent.fault = judged?.fault
            sent.rule = judged?.rule
            if let delay = scenario.delayMilliseconds, delay > 0 { sent.delayMilliseconds = Int(delay.rounded()) }
            if let failure {
                journaling.recordFailure(failure, authentication: authentication, sent: sent)
            }
        }
        guard let delay = scenario.delayMilliseconds, delay > 0 else { return respond() }
        let later = NIOLoopBound(respond, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) { later.value() }
    }

    /// Sends the connection's only answer, then drains.
    private func answer(_ action: LegacyConnectionAction, context: ChannelHandlerContext) {
        switch action {
        case .sendErrorAndClose(let response):
            report.errorResponse = response
            let written = context.eventLoop.makePromise(of: Void.self)
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            written.futureResult.whenSuccess { handler.value.answerWritten = true }
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: response.bytes)), promise: written)
        case .closeSilently:
            report.closedSilently = true
            answerWritten = true
        }
        beginDrain(context: context)
    }

    /// The server is going away: status 10, then drain and close.
    private func shutDown(context: ChannelHandlerContext) {
        switch state {
        case .handshaking:
            close(context: context)
        case .open:
            guard let response = session.shutdown() else { return }
            logger.info("legacy gateway: shutting the connection down (status 10, last accepted identifier \(response.identifier))")
            answer(.sendErrorAndClose(response), context: context)
        case .draining, .closing:
            break  // Already answered; it closes on its own.
        }
    }

    // MARK: Draining

    private func beginDrain(context: ChannelHandlerContext) {
        state = .draining
        restartQuietTimer(context: context)
        let handler = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        drainDeadline = context.eventLoop.scheduleTask(in: services.drain.maximumDuration) {
            handler.value.handler.close(context: handler.value.context)
        }
    }

    /// Reads and throws away what the client sent after the answer; the session counts the
    /// notifications among it as dropped.
    private func discard(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        report.drainedBytes += bytes.readableBytes
        if session.isClosing {
            let journaling = self.journaling
            let authentication = self.authentication
            _ = bytes.withUnsafeReadableBytes { raw in
                session.receive(raw, decide: { _, _ in nil }, observe: { journaling.observe($0, authentication: authentication) })
            }
        }
        if report.drainedBytes >= services.drain.maximumBytes {
            close(context: context)
        } else {
            restartQuietTimer(context: context)
        }
    }

    private func restartQuietTimer(context: ChannelHandlerContext) {
        quietTimer?.cancel()
        let handler = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        quietTimer = context.eventLoop.scheduleTask(in: services.drain.quietPeriod) {
            handler.value.handler.close(context: handler.value.context)
        }
    }

    private func cancelTimers() {
        frameDeadline?.timer.cancel()
        frameDeadline = nil
        quietTimer?.cancel()
        quietTimer = nil
        drainDeadline?.cancel()
        drainDeadline = nil
    }

    private func close(context: ChannelHandlerContext) {
        cancelTimers()
        if case .closing = state { return }
        state = .closing
        context.close(promise: nil)
    }

    // MARK: Reporting

    private func diagnose(_ diagnosis: LegacyDiagnosis) {
        report.diagnoses.append(diagnosis)
        journaling.diagnosis(diagnosis)
        logger.notice("legacy gateway: \(diagnosis.message)", metadata: ["diagnosis": "\(diagnosis.code.rawValue)"])
    }

    private func recordOnce() {
        guard !recorded else { return }
        recorded = true
        report.accepted = session.acceptedCount
        report.dropped = session.droppedCount
        report.lastAcceptedIdentifier = session.lastAcceptedIdentifier
        report.unparseableFrames += session.unparseableDroppedCount
        if authenticated {
            var summary = "legacy gateway connection closed: \(report.accepted) accepted, \(report.dropped) dropped"
            if let response = report.errorResponse {
                summary += ", answered status \(response.status.rawValue) for identifier \(response.identifier)"
            } else if report.closedSilently {
                summary += ", closed without a packet"
            }
            logger.info("\(summary)")
        }
        if let churn = services.activity.record(report, handshakeCompleted: authenticated) {
            // Logged by the activity log, which sees every connection; journaled here, on the
            // connection that completed the pattern.
            journaling.diagnosis(churn)
        }
    }

    /// A failure in plain words, for the log and the report.
    static func describe(_ cause: LegacyFailureCause) -> String {
        switch cause {
        case .decision(let reason, let notification):
            let name = notification.identifier.map { "notification \($0)" } ?? "a command-0 notification"
            let token = notification.token.prefix(4).map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
            return "\(name) (token \(token)...) refused: \(reason.rawValue), status \(reason.legacyStatus.rawValue)"
        case .frame(let error):
            let name = error.identifier.map { "notification \($0)" } ?? "a frame"
            // Command 0 carries no identifier, and gets no error packet: the connection closes.
            let status = error.command == LegacyCommand.simple.rawValue
                ? "closed without a packet (command 0 gets none)"
                : error.status.map { "status \($0.rawValue)" } ?? "unparseable"
            return "\(name) (command \(error.command)) refused: \(error.problem), \(status)"
        }
    }
}

@available(*, unavailable)
extension LegacyGatewayHandler: Sendable {}
