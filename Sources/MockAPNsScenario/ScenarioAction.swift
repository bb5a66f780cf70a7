import MockAPNsWire
import MockAPNsCore
/// What a rule does to the request it matched. Each protocol answers in its own way; the
/// actions table of docs/guide/scenarios.md lists the HTTP/2, legacy gateway and feedback forms of each.
package enum ScenarioAction: Sendable, Equatable {
    /// Answer success, whatever the core would have said (only meaningful before validation).
    case accept
    /// Refuse with an APNs reason: its HTTP status and `{"reason":...}` body on HTTP/2 (with
    /// a timestamp for 410, `timestamp` or now), its legacy status byte on the gateway.
    case reject(Reason, timestamp: Int64?)
    /// Answer anything at all on HTTP/2. On the gateway: `legacyStatus` if given, nothing
    /// for a 2xx status, else status 1 (processing error).
    case respond(ScenarioResponse)
    /// A connection-level or stream-level misbehaviour.
    case fault(ScenarioFault)
    /// Refuse new TLS handshakes with this alert. Matched when a connection opens, so such a
    /// rule may match only protocols, connection numbers and probability.
    case refuseHandshake(TLSAlert)
    /// Give the request's device token this rate window (`DeviceRegistry.limitPushes`), then
    /// let the core decide as if no rule had fired. A before-validation rule's window counts
    /// the request itself; an after-validation rule's counts from the next push. Setting the
    /// window a token already has keeps its count, so the rule may fire on every push.
    case limitRate(RateWindow)
    /// Take the request's device offline (`online: false`) or bring it back online, before
    /// the request's notification reaches the delivery model; the answer is the core's.
    case setDevice(online: Bool)
}

extension ScenarioAction {
    /// Whether a rule with this action decides the answer itself, so that a before-validation
    /// rule firing with it leaves the decision core out.
    var decidesTheAnswer: Bool {
        switch self {
        case .accept, .reject, .respond, .fault, .refuseHandshake: true
        // A rate window or a device change acts beside the answer, which the core still gives.
        case .limitRate, .setDevice: false
        }
    }

    /// The verdict `action` answers with, given the core's (`ScenarioDecision.verdict`). Kept
    /// beside the cases so that a new action is placed here, in the same file.
    static func verdict(
        of action: ScenarioAction?, core coreVerdict: Verdict?, apnsID: () -> MessageID, uniqueID: () -> MessageID?, now: Int64
    ) -> Verdict? {
        switch action {
        case nil, .fault, .limitRate, .setDevice:
            return coreVerdict ?? .accepted(apnsID: apnsID(), uniqueID: uniqueID())
        case .accept:
            if case .accepted? = coreVerdict { return coreVerdict }
            return .accepted(apnsID: coreVerdict?.apnsID ?? apnsID(), uniqueID: uniqueID())
        case .reject(let reason, let timestamp):
            let stamp = reason.carriesTimestamp ? timestamp ?? now : nil
            return .rejected(reason: reason, apnsID: coreVerdict?.apnsID ?? apnsID(), timestamp: stamp)
        case .respond, .refuseHandshake:
            return nil
        }
    }
}

/// An arbitrary HTTP/2 answer.
package struct ScenarioResponse: Sendable, Equatable {
    package var status: Int
    /// Extra header fields, in order (`apns-id` is added unless given here).
    package var headers: [HTTPHeader]
    /// The body; `nil` sends `{"reason":...}` when `reason` is set, else nothing.
    package var body: String?
    /// A reason string for the default body (need not be one of Apple's).
    package var reason: String?
    /// The legacy gateway's status byte for this answer.
    package var legacyStatus: LegacyStatus?

    package init(status: Int, headers: [HTTPHeader] = [], body: String? = nil, reason: String? = nil, legacyStatus: LegacyStatus? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.reason = reason
        self.legacyStatus = legacyStatus
    }

    /// The body bytes sent on HTTP/2.
    package var bodyBytes: [UInt8]? {
        if let body { return Array(body.utf8) }
        if let reason { return JSONWriter.reasonObject(reason) }
        return nil
    }
}

/// Ways to misbehave on the wire.
package enum ScenarioFault: Sendable, Equatable {
    /// Close the connection normally (TCP FIN) without answering.
    case closeConnection
    /// Abort the connection (SO_LINGER 0, then close: the client sees a TCP RST).
    case resetConnection
    /// HTTP/2 GOAWAY. The legacy gateway answers status 10 instead, its only way to go away.
    case goAway(ScenarioGoAway)
    /// HTTP/2 RST_STREAM on the request's stream. The legacy gateway has no streams: it
    /// closes the connection silently, which is what a lost notification looks like there.
    case resetStream(errorCode: UInt32)
    /// Never answer; the connection stays open.
    case stall
    /// HTTP/2: announce a lower SETTINGS_MAX_CONCURRENT_STREAMS, then answer as usual. The
    /// gateway has no such setting and answers as usual.
    case lowerMaxConcurrentStreams(UInt32)
    /// Write these bytes, then close. `insideTLS` sends them through the TLS session (the
    /// client's HTTP/2 or binary parser sees them); otherwise they go raw on the socket
    /// (the client's TLS layer sees them).
    case sendGarbage(ScenarioGarbage)
    /// Answer as usual, but close the connection once this many more bytes have been written
    /// to the socket, mid-record if need be.
    case closeAfterBytes(Int)
    /// The server is going away: HTTP/2 answers the request, then GOAWAY NO_ERROR
    /// `{"reason":"Shutdown"}` and closes when the open streams are done; the gateway sends
    /// status 10 naming the last accepted notification, then closes.
    case shutdown
}

/// The fields of an injected GOAWAY.
package struct ScenarioGoAway: Sendable, Equatable {
    /// Which stream the GOAWAY names as the last one the server will process.
    package enum LastStream: Sendable, Equatable {
        /// The last stream handed to the server (the default).
        case lastReceived
        /// The stream of the request that triggered it: later streams are not answered.
        case current
        /// A fixed stream id.
        case id(Int32)
    }

    package var errorCode: UInt32
    package var lastStream: LastStream
    /// The debug data: `{"reason":"<reason>"}` when `reason` is set, `debugData` verbatim
    /// when that is set, else empty.
    package var reason: String?
    package var debugData: String?
    /// Close right after the GOAWAY is written (the default), or stay open.
    package var closeConnection: Bool
    /// Answer the triggering request before the GOAWAY (when its stream is covered).
    package var answerRequest: Bool

    package init(errorCode: UInt32 = 0, lastStream: LastStream = .lastReceived, reason: String? = nil,
                debugData: String? = nil, closeConnection: Bool = true, answerRequest: Bool = false) {
        self.errorCode = errorCode
        self.lastStream = lastStream
        self.reason = reason
        self.debugData = debugData
        self.closeConnection = closeConnection
        self.answerRequest = answerRequest
    }

    /// The GOAWAY's debug data bytes.
    package var debugBytes: [UInt8] {
        if let debugData { return Array(debugData.utf8) }
        if let reason { return JSONWriter.reasonObject(reason) }
        return []
    }
}

/// Bytes to inject.
package struct ScenarioGarbage: Sendable, Equatable {
    /// Fixed bytes, or `nil` for `length` bytes from the seeded generator.
    package var bytes: [UInt8]?
    package var length: Int
    package var insideTLS: Bool

    package init(bytes: [UInt8]? = nil, length: Int = 64, insideTLS: Bool = false) {
        self.bytes = bytes
        self.length = bytes?.count ?? length
        self.insideTLS = insideTLS
    }
}

extension ScenarioFault: CustomStringConvertible {
    /// A short account of the fault for logs and the journal, in wire terms.
    package var description: String {
        switch self {
        case .closeConnection: return "close the connection (FIN)"
        case .resetConnection: return "reset the connection (RST)"
        case .goAway(let goAway):
            let code = HTTP2ErrorCode.knownName(of: goAway.errorCode) ?? String(goAway.errorCode)
            let last: String
            switch goAway.lastStream {
            case .lastReceived: last = "last received"
            case .current: last = "this request's"
            case .id(let id): last = String(id)
            }
            let debug = String(decoding: goAway.debugBytes, as: UTF8.self)
            return "GOAWAY \(code), last stream \(last)" + (debug.isEmpty ? "" : ", debug data \(debug)")
        case .resetStream(let code):
            return "RST_STREAM " + (HTTP2ErrorCode.knownName(of: code) ?? String(code))
        case .stall: return "never answer"
        case .lowerMaxConcurrentStreams(let limit): return "SETTINGS_MAX_CONCURRENT_STREAMS \(limit)"
        case .sendGarbage(let garbage): return "\(garbage.length) garbage bytes " + (garbage.insideTLS ? "inside TLS" : "on the socket")
        case .closeAfterBytes(let bytes): return "close after \(bytes) bytes"
        case .shutdown: return "shut down (GOAWAY Shutdown, legacy status 10)"
        }
    }
}
