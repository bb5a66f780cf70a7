import MockAPNsSessions
import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import NIOCore
import MockAPNsLegacy
import MockAPNsJSON

/// What every feedback connection shares.
struct LegacyFeedbackServices: Sendable {
    /// The default session's registry.
    let registry: DeviceRegistry
    /// The sessions a certificate may belong to: its feedback comes from its session's registry.
    var sessions: SessionDirectory? = nil
    let environment: APNsEnvironment
    let logger: Logger
    /// Where each tuple sent is recorded; `nil` records nothing.
    var journal: Journal? = nil
}

/// One connection to the legacy feedback service: once TLS completes, every queued feedback
/// entry the client certificate collects (its topics, this server's environment) is taken from
/// the registry and written as `(time, token length, token)` tuples, then the connection is
/// closed with close_notify. The client sends nothing; an empty queue means zero bytes, then
/// close. Entries are removed as they are read, so each shows up once.
final class LegacyFeedbackHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let services: LegacyFeedbackServices
    private var logger: Logger

    /// Records each tuple sent.
    private let journaling: LegacyJournaling

    init(services: LegacyFeedbackServices, recorder: ConnectionJournal? = nil) {
        self.services = services
        self.journaling = LegacyJournaling(recorder: recorder ?? ConnectionJournal(journal: services.journal, connectionID: 0))
        self.logger = services.logger
    }

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.remoteAddress {
            logger[metadataKey: "peer"] = "\(remote)"
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let completed as TLSHandshakeCompleted:
            sendFeedback(context: context, session: completed.session)
        case let failed as TLSHandshakeFailed:
            TLSRefusalLog.handshakeRefused(failed, listener: "legacy feedback", logger: logger)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The protocol has the client send nothing; whatever it sends is ignored.
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !(error is TLSError) {
            logger.notice("legacy feedback connection error: \(error)")
        }
        context.close(promise: nil)
    }

    private func sendFeedback(context: ChannelHandlerContext, session: TLSSessionInfo) {
        let certificate: LegacyClientCertificate
        switch LegacyClientCertificate.read(session, environment: services.environment) {
        case .success(let read):
            certificate = read
        case .failure(let refusal):
            logger.notice("legacy feedback: \(refusal)")
            context.close(promise: nil)
            return
        }
        let registry = services.sessions?.scope(forTeam: certificate.identity.organizationalUnit).registry ?? services.registry
        let entries = registry.drainFeedback(topics: certificate.feedbackTopics, environment: services.environment)
        var bytes: [UInt8] = []
        var sent = 0
        for entry in entries {
            // Entries come from the registry, which any rule or API call may have filled; one a
            // tuple cannot carry is skipped with its reason in the log and the journal.
            guard let token = Self.binaryToken(entry.deviceToken) else {
                skip(entry, reason: "the token is not an even number of hex digits")
                continue
            }
            guard let tuple = FeedbackTuple(secondsSince1970: entry.secondsSince1970, token: token) else {
                skip(entry, reason: "its time (\(entry.timestamp) ms since 1970) does not fit a tuple's 32-bit seconds (1970 to 2106-02-07)")
                continue
            }
            tuple.encode(into: &bytes)
            journaling.feedbackTuple(entry)
            sent += 1
        }
        logger.info("legacy feedback: sent \(sent) tuple(s) to \(certificate.identity.subject)")
        if !bytes.isEmpty {
            context.write(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
        }
        // The TLS handler sends the tuples, then close_notify, then closes the socket.
        context.close(promise: nil)
    }

    private func skip(_ entry: FeedbackEntry, reason: String) {
        logger.notice("legacy feedback: skipped token \"\(entry.deviceToken)\": \(reason)")
        journaling.feedbackSkipped(entry, reason: reason)
    }

    /// The bytes a hex token spells, or `nil` if it is not a non-empty, even number of hex digits.
    static func binaryToken(_ hex: String) -> [UInt8]? {
        hex.isEmpty ? nil : HexDigits.bytes(hex: hex)
    }
}

@available(*, unavailable)
extension LegacyFeedbackHandler: Sendable {}
