import MockAPNsCore
import MockAPNsWire
/// How each kind of event is laid out in a packed journal chunk, and read back.
///
/// An event is: its kind (one byte), a flags byte (bit 0: a connection follows, bit 1: a
/// stream follows), its wall and monotonic times as differences from the chunk's first event,
/// the connection and stream, then the kind's own fields. The kinds recorded per frame and per
/// notification are packed field by field; the rare ones (handshakes, broadcasts, channel
/// operations, verdicts) are kept as values beside the chunks (`JournalStore`), so their layout here is
/// empty.
package enum JournalPacking {
    /// Whether events of this kind are kept as values rather than packed.
    package static func isKeptAsValue(_ name: JournalEventKind.Name) -> Bool {
        switch name {
        case .tlsEstablished, .tlsFailed, .broadcast, .channelOperation, .verdict: true
        case .connectionOpened, .connectionClosed, .http2Frame, .legacyFrame, .notification, .fault,
             .feedbackTuple, .diagnosis, .delivery:
            false
        }
    }

    /// The most bytes of a byte string from the wire kept in memory: a legacy frame's raw
    /// bytes, a GOAWAY's debug data. Longer ones (the bytes of a frame that is no frame) are
    /// kept as their first bytes, beside the length they had (`frameLength`, the frame's
    /// `length`), as a notification's payload is (`RecordedPayload.limit`, its `payloadLength`).
    static let keptBytesLimit = RecordedPayload.limit

    /// `bytes`, or their first `keptBytesLimit`.
    static func keptPrefix(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count <= keptBytesLimit ? bytes : Array(bytes[..<keptBytesLimit])
    }

    /// What an event kept as a value costs the store, roughly: its record, and each string's
    /// bytes and allocation. Cheap (no formatting): it runs under the journal's lock.
    static func estimatedBytes(of kind: JournalEventKind) -> Int {
        let record = 128
        func text(_ value: String?) -> Int { value.map { 32 + $0.utf8.count } ?? 0 }
        func texts(_ values: [String]?) -> Int { values.map { $0.reduce(32) { $0 + text($1) } } ?? 0 }
        switch kind {
        case .tlsEstablished(let session):
            return record + text(session.version) + text(session.cipher) + text(session.serverName)
                + texts(session.offeredALPN) + text(session.negotiatedALPN) + text(session.clientCertificateSubject)
                + texts(session.topics) + texts(session.environments)
        case .tlsFailed(let failure):
            return record + text(failure.reason) + text(failure.alertSent) + text(failure.alertReceived)
                + text(failure.serverName) + texts(failure.offeredALPN) + texts(failure.offeredVersions)
                + texts(failure.offeredCipherSuites)
        case .broadcast(let broadcast):
            return 4 * record + broadcast.payload.count
        case .channelOperation:
            return 4 * record
        case .verdict(let verdict):
            return record + text(verdict.message) + text(verdict.deviceToken)
                + 8 * (verdict.notifications.count + verdict.connections.count) + 48 * verdict.figures.count
        case .connectionOpened, .connectionClosed, .http2Frame, .legacyFrame, .notification, .fault, .feedbackTuple,
             .diagnosis, .delivery:
            return record
        }
    }

    /// What the event's own header already holds, which a kind's fields need not repeat: a
    /// notification's connection and stream are nearly always the event's, and the `iat` of
    /// its provider token lies a few minutes before the event's time.
    package struct EventHeader {
        package var wallTime: Int64
        package var connection: UInt64?
        package var stream: Int32?

        package init(wallTime: Int64, connection: UInt64?, stream: Int32?) {
            self.wallTime = wallTime
            self.connection = connection
            self.stream = stream
        }
    }

    /// Writes the fields of `kind` (nothing for a kind kept as a value).
    package static func pack(_ kind: JournalEventKind, header: EventHeader, into writer: inout JournalByteWriter) {
        switch kind {
        case .connectionOpened(let transport, let peer):
            writer.byte(index(of: transport))
            writer.string(peer)
        case .connectionClosed(let transport, let closedBy, let reason):
            writer.byte(index(of: transport))
            writer.byte(index(of: closedBy))
            writer.string(reason)
        case .http2Frame(let frame):
            pack(frame, into: &writer)
        case .legacyFrame(let frame):
            pack(frame, into: &writer)
        case .notification(let record):
            pack(record, header: header, into: &writer)
        case .fault(let description):
            writer.string(description)
        case .feedbackTuple(let token, let timestamp):
            writer.string(token)
            writer.signed(timestamp)
        case .diagnosis(let code, let message, let figures):
            writer.string(code.rawValue)
            writer.string(message)
            writer.int(figures.count)
            for figure in figures {
                writer.string(figure.name)
                writer.signed(figure.value)
            }
        case .delivery(let record):
            pack(record, into: &writer)
        case .tlsEstablished, .tlsFailed, .broadcast, .channelOperation, .verdict:
            break
        }
    }

    /// Reads the fields of a packed kind; `nil` for a kind kept as a value or unreadable bytes.
    package static func unpack(_ name: JournalEventKind.Name, header: EventHeader, from reader: inout JournalByteReader) -> JournalEventKind? {
        let kind: JournalEventKind?
        switch name {
        case .connectionOpened:
            let transport = value(Transport.self, at: reader.byte())
            kind = transport.map { .connectionOpened(transport: $0, peer: reader.string()) }
        case .connectionClosed:
            let transport = value(Transport.self, at: reader.byte())
            let closedBy = value(ClosingSide.self, at: reader.byte())
            if let transport, let closedBy {
                kind = .connectionClosed(transport: transport, closedBy: closedBy, reason: reader.string())
            } else {
                kind = nil
            }
        case .http2Frame:
            kind = unpackHTTP2Frame(from: &reader).map { .http2Frame($0) }
        case .legacyFrame:
            kind = .legacyFrame(unpackLegacyFrame(from: &reader))
        case .notification:
            kind = unpackNotification(header: header, from: &reader).map { .notification($0) }
        case .fault:
            kind = .fault(description: reader.text())
        case .feedbackTuple:
            kind = .feedbackTuple(deviceToken: reader.text(), timestampMilliseconds: reader.signed())
        case .diagnosis:
            let code = DiagnosisCode(rawValue: reader.text())
            let message = reader.text()
            var figures: [JournalFigure] = []
            let count = reader.int()
            var read = 0
            while read < count, !reader.failed {
                figures.append(JournalFigure(reader.text(), reader.signed()))
                read += 1
            }
            kind = code.map { .diagnosis(code: $0, message: message, figures: figures) }
        case .delivery:
            kind = unpackDelivery(from: &reader).map { .delivery($0) }
        case .tlsEstablished, .tlsFailed, .broadcast, .channelOperation, .verdict:
            kind = nil
        }
        return reader.failed ? nil : kind
    }

    // MARK: Notifications

    /// Which of a notification's own place fields are left out, being what the event says.
    private struct RecordPlace: OptionSet {
        let rawValue: UInt8
        /// No sequence yet (the event gives it when read).
        static let noSequence = RecordPlace(rawValue: 1 << 0)
        /// No time yet (likewise).
        static let noWallTime = RecordPlace(rawValue: 1 << 1)
        static let eventsConnection = RecordPlace(rawValue: 1 << 2)
        static let eventsStream = RecordPlace(rawValue: 1 << 3)
    }

    /// A record's fields, read where the record holds them: a box's constants, or a compact
    /// record's entry and context. One layout for all (`NotificationLayout`), so they read
    /// back alike (`unpackNotification`).
    private static func pack(_ record: NotificationRecord, header: EventHeader, into writer: inout JournalByteWriter) {
        switch record.storage {
        case .boxed(let box): pack(fieldsOf: box, header: header, into: &writer)
        case .compactLegacy(let compact): pack(fieldsOf: compact, header: header, into: &writer)
        case .compactHTTP2(let compact): pack(fieldsOf: compact, header: header, into: &writer)
        }
    }

    private static func pack<Record: NotificationLayout>(
        fieldsOf record: Record, header: EventHeader, into writer: inout JournalByteWriter
    ) {
        var place: RecordPlace = []
        if record.sequence == 0 { place.insert(.noSequence) }
        if record.wallTimeMilliseconds == 0 { place.insert(.noWallTime) }
        if record.connectionID == header.connection { place.insert(.eventsConnection) }
        if record.streamID == header.stream { place.insert(.eventsStream) }
        writer.byte(place.rawValue)
        if !place.contains(.noSequence) { writer.varint(record.sequence) }
        if !place.contains(.noWallTime) { writer.signed(record.wallTimeMilliseconds) }
        if !place.contains(.eventsConnection) { writer.optionalInt64(record.connectionID.map { Int64(bitPattern: $0) }) }
        if !place.contains(.eventsStream) { writer.optionalInt(record.streamID.map { Int($0) }) }
        writer.byte(index(of: record.transport))
        record.withDeviceTokenUTF8 { writer.text($0) }
        writer.string(record.topic)
        writer.string(record.pushType)
        writer.identifier(record.requestAPNsID)
        writer.optionalInt(record.priority)
        writer.optionalInt64(record.expiration)
        writer.string(record.collapseID)
        writer.optionalInt64(record.legacyIdentifier.map { Int64($0) })
        writer.optionalInt(record.legacyCommand.map { Int($0) })
        record.withPayloadBytes { writer.text($0) }
        writer.int(record.payloadLength)
        record.withAuthentication { pack($0, header: header, into: &writer) }
        record.withAnswer { pack($0, into: &writer) }
        writer.bool(record.dropped)
        writer.string(record.problem)
        writer.optionalInt(record.handlingMicroseconds)
        writer.optionalInt(record.environment.map { index(of: $0) })
        writer.bool(record.webPush != nil)
        if let webPush = record.webPush { pack(webPush, into: &writer) }
        writer.optionalInt(record.payloadIsJSON.map { $0 ? 1 : 0 })
    }

    private static func pack(_ details: WebPushDetails, into writer: inout JournalByteWriter) {
        writer.optionalInt(details.ttl)
        writer.string(details.urgency)
        writer.string(details.contentEncoding)
        writer.string(details.subject)
        writer.string(details.audience)
        writer.optionalInt64(details.jwtExpiration)
        writer.string(details.applicationServerKey)
        writer.data(details.message)
        writer.string(details.messageProblem)
        writer.bool(details.notification != nil)
        if let notification = details.notification {
            writer.string(notification.title)
            writer.string(notification.body)
            writer.string(notification.navigate)
            writer.string(notification.lang)
            writer.string(notification.dir)
            writer.string(notification.tag)
            writer.optionalInt(notification.silent.map { $0 ? 1 : 0 })
            writer.optionalInt(notification.appBadge)
            writer.bool(notification.mutable)
        }
        writer.string(details.notificationProblem)
    }

    private static func unpackWebPush(from reader: inout JournalByteReader) -> WebPushDetails {
        var details = WebPushDetails()
        details.ttl = reader.optionalInt()
        details.urgency = reader.string()
        details.contentEncoding = reader.string()
        details.subject = reader.string()
        details.audience = reader.string()
        details.jwtExpiration = reader.optionalInt64()
        details.applicationServerKey = reader.string()
        details.message = reader.data()
        details.messageProblem = reader.string()
        if reader.bool() {
            let title = reader.text()
            let body = reader.string()
            let navigate = reader.text()
            details.notification = WebPushNotificationContent(
                title: title, body: body, navigate: navigate, lang: reader.string(), dir: reader.string(), tag: reader.string(),
                silent: reader.optionalInt().map { $0 != 0 }, appBadge: reader.optionalInt(), mutable: reader.bool()
            )
        }
        details.notificationProblem = reader.string()
        return details
    }

    private static func unpackNotification(header: EventHeader, from reader: inout JournalByteReader) -> NotificationRecord? {
        let place = RecordPlace(rawValue: reader.byte())
        let sequence = place.contains(.noSequence) ? 0 : reader.varint()
        let wallTime = place.contains(.noWallTime) ? 0 : reader.signed()
        let connection = place.contains(.eventsConnection) ? header.connection : reader.optionalInt64().map { UInt64(bitPattern: $0) }
        let stream = place.contains(.eventsStream) ? header.stream : reader.optionalInt().map { Int32(truncatingIfNeeded: $0) }
        guard let transport = value(Transport.self, at: reader.byte()) else { return nil }
        let token = reader.text()
        let topic = reader.string()
        let pushType = reader.string()
        let requestAPNsID = reader.identifier()
        let priority = reader.optionalInt()
        let expiration = reader.optionalInt64()
        let collapseID = reader.string()
        let legacyIdentifier = reader.optionalInt64().map { UInt32(truncatingIfNeeded: $0) }
        let legacyCommand = reader.optionalInt().map { UInt8(truncatingIfNeeded: $0) }
        let payload = reader.data() ?? []
        let payloadLength = reader.int()
        let authentication = unpackAuthentication(header: header, from: &reader)
        let answer = unpackAnswer(from: &reader)
        let dropped = reader.bool()
        let problem = reader.string()
        let handling = reader.optionalInt()
        let environment = reader.optionalInt().flatMap { value(APNsEnvironment.self, at: UInt8(truncatingIfNeeded: $0)) }
        let webPush = reader.bool() ? unpackWebPush(from: &reader) : nil
        let payloadIsJSON = reader.optionalInt().map { $0 != 0 }

        return NotificationRecord(
            transport: transport, deviceToken: token, topic: topic, pushType: pushType,
            requestAPNsID: requestAPNsID, priority: priority, expiration: expiration, collapseID: collapseID,
            legacyIdentifier: legacyIdentifier, legacyCommand: legacyCommand, payload: payload,
            payloadLength: payloadLength, payloadIsJSON: payloadIsJSON, authentication: authentication,
            answer: answer, dropped: dropped, problem: problem, handlingMicroseconds: handling, environment: environment,
            webPush: webPush, connectionID: connection, streamID: stream, sequence: sequence, wallTimeMilliseconds: wallTime
        )
    }

    // MARK: Answers

    /// Which of an answer's rarer parts follow its common ones.
    private struct AnswerParts: OptionSet {
        let rawValue: UInt8
        static let scriptedHeaders = AnswerParts(rawValue: 1 << 0)
        static let scriptedBody = AnswerParts(rawValue: 1 << 1)
        static let legacyPacket = AnswerParts(rawValue: 1 << 2)
        static let fault = AnswerParts(rawValue: 1 << 3)
        static let rule = AnswerParts(rawValue: 1 << 4)
        static let delay = AnswerParts(rawValue: 1 << 5)
        static let undelivered = AnswerParts(rawValue: 1 << 6)
        static let upstream = AnswerParts(rawValue: 1 << 7)
    }

    private enum FaultTag: UInt8 {
        case closeConnection, resetConnection, goAway, resetStream, stall, lowerMaxConcurrentStreams, sendGarbage
        case closeAfterBytes, shutdown
    }

    /// An answer: what every answer has (accepted, reason, status, ids, timestamp), then a
    /// byte saying which rarer parts follow, so the common answer costs no more than before.
    static func pack(_ answer: SentAnswer, into writer: inout JournalByteWriter) {
        writer.bool(answer.accepted)
        pack(answer.reason, into: &writer)
        writer.optionalInt(answer.status)
        writer.identifier(answer.apnsID)
        writer.identifier(answer.uniqueID)
        writer.optionalInt64(answer.timestamp)
        var parts: AnswerParts = []
        if answer.scriptedHeaders != nil { parts.insert(.scriptedHeaders) }
        if answer.scriptedBody != nil { parts.insert(.scriptedBody) }
        if answer.legacyPacket != nil { parts.insert(.legacyPacket) }
        if answer.fault != nil { parts.insert(.fault) }
        if answer.rule != nil { parts.insert(.rule) }
        if answer.delayMilliseconds != nil { parts.insert(.delay) }
        if answer.undelivered != nil { parts.insert(.undelivered) }
        if answer.upstream != nil { parts.insert(.upstream) }
        writer.byte(parts.rawValue)
        if let headers = answer.scriptedHeaders {
            writer.int(headers.count)
            for header in headers {
                writer.string(header.name)
                writer.string(header.value)
            }
        }
        if let body = answer.scriptedBody { writer.data(body) }
        if let packet = answer.legacyPacket {
            writer.byte(packet.status.rawValue)
            writer.varint(UInt64(packet.identifier))
        }
        if let fault = answer.fault { pack(fault, into: &writer) }
        if let rule = answer.rule { writer.string(rule) }
        if let delay = answer.delayMilliseconds { writer.int(delay) }
        if let undelivered = answer.undelivered { writer.string(undelivered) }
        if let upstream = answer.upstream { pack(upstream, into: &writer) }
    }

    private static func pack(_ upstream: UpstreamRelay, into writer: inout JournalByteWriter) {
        writer.string(upstream.origin)
        writer.int(upstream.latencyMicroseconds)
        writer.string(upstream.failureKind)
        writer.string(upstream.failure)
        writer.int(upstream.ownStatus)
        pack(upstream.ownReason, into: &writer)
        writer.bool(upstream.disagrees)
    }

    private static func unpackUpstream(from reader: inout JournalByteReader) -> UpstreamRelay {
        let origin = reader.text()
        let latency = reader.int()
        let failureKind = reader.string()
        let failure = reader.string()
        let ownStatus = reader.int()
        let ownReason = unpackReason(from: &reader)
        return UpstreamRelay(origin: origin, latencyMicroseconds: latency, failureKind: failureKind, failure: failure,
                             ownStatus: ownStatus, ownReason: ownReason, disagrees: reader.bool())
    }

    static func unpackAnswer(from reader: inout JournalByteReader) -> SentAnswer {
        var answer = SentAnswer(accepted: reader.bool())
        answer.reason = unpackReason(from: &reader)
        answer.status = reader.optionalInt()
        answer.apnsID = reader.messageID()
        answer.uniqueID = reader.messageID()
        answer.timestamp = reader.optionalInt64()
        let parts = AnswerParts(rawValue: reader.byte())
        if parts.contains(.scriptedHeaders) {
            var headers: [HTTPHeader] = []
            let count = reader.int()
            while headers.count < count, !reader.failed {
                headers.append(HTTPHeader(name: reader.text(), value: reader.text()))
            }
            answer.scriptedHeaders = headers
        }
        if parts.contains(.scriptedBody) { answer.scriptedBody = reader.data() ?? [] }
        if parts.contains(.legacyPacket) {
            let status = LegacyStatus(rawValue: reader.byte()) ?? .unknown
            answer.legacyPacket = LegacyErrorResponse(status: status, identifier: UInt32(truncatingIfNeeded: reader.varint()))
        }
        if parts.contains(.fault) { answer.fault = unpackFault(from: &reader) }
        if parts.contains(.rule) { answer.rule = reader.text() }
        if parts.contains(.delay) { answer.delayMilliseconds = reader.int() }
        if parts.contains(.undelivered) { answer.undelivered = reader.text() }
        if parts.contains(.upstream) { answer.upstream = unpackUpstream(from: &reader) }
        return answer
    }

    private static func pack(_ fault: AppliedFault, into writer: inout JournalByteWriter) {
        switch fault {
        case .closeConnection: writer.byte(FaultTag.closeConnection.rawValue)
        case .resetConnection: writer.byte(FaultTag.resetConnection.rawValue)
        case .stall: writer.byte(FaultTag.stall.rawValue)
        case .shutdown: writer.byte(FaultTag.shutdown.rawValue)
        case .goAway(let errorCode, let lastStreamID):
            writer.byte(FaultTag.goAway.rawValue)
            writer.varint(UInt64(errorCode))
            writer.optionalInt(lastStreamID.map { Int($0) })
        case .resetStream(let errorCode):
            writer.byte(FaultTag.resetStream.rawValue)
            writer.varint(UInt64(errorCode))
        case .lowerMaxConcurrentStreams(let limit):
            writer.byte(FaultTag.lowerMaxConcurrentStreams.rawValue)
            writer.varint(UInt64(limit))
        case .sendGarbage(let length, let insideTLS):
            writer.byte(FaultTag.sendGarbage.rawValue)
            writer.int(length)
            writer.bool(insideTLS)
        case .closeAfterBytes(let bytes):
            writer.byte(FaultTag.closeAfterBytes.rawValue)
            writer.int(bytes)
        }
    }

    private static func unpackFault(from reader: inout JournalByteReader) -> AppliedFault? {
        switch FaultTag(rawValue: reader.byte()) {
        case .closeConnection: return .closeConnection
        case .resetConnection: return .resetConnection
        case .stall: return .stall
        case .shutdown: return .shutdown
        case .goAway:
            let errorCode = UInt32(truncatingIfNeeded: reader.varint())
            return .goAway(errorCode: errorCode, lastStreamID: reader.optionalInt().map { Int32(truncatingIfNeeded: $0) })
        case .resetStream: return .resetStream(errorCode: UInt32(truncatingIfNeeded: reader.varint()))
        case .lowerMaxConcurrentStreams: return .lowerMaxConcurrentStreams(UInt32(truncatingIfNeeded: reader.varint()))
        case .sendGarbage: return .sendGarbage(length: reader.int(), insideTLS: reader.bool())
        case .closeAfterBytes: return .closeAfterBytes(reader.int())
        case nil: return nil
        }
    }

    private static func pack(_ authentication: JournalAuthentication, header: EventHeader, into writer: inout JournalByteWriter) {
        writer.string(authentication.kind)
        writer.string(authentication.teamID)
        writer.string(authentication.keyID)
        pack(authentication.refusal, into: &writer)
        // Seconds from the event's time: two bytes for a token of the last hour, not five.
        // Wrapping both ways, so any value reads back exactly.
        writer.optionalInt64(authentication.issuedAt.map { $0 &- header.wallTime / 1000 })
        writer.string(authentication.detail)
        writer.string(authentication.session)
    }

    private static func unpackAuthentication(header: EventHeader, from reader: inout JournalByteReader) -> JournalAuthentication {
        JournalAuthentication(
            kind: reader.text(), teamID: reader.string(), keyID: reader.string(), refusal: unpackReason(from: &reader),
            issuedAt: reader.optionalInt64().map { $0 &+ header.wallTime / 1000 }, detail: reader.string(),
            session: reader.string()
        )
    }

    /// A reason as its position among `Reason.allCases` plus one (0: none).
    private static func pack(_ reason: Reason?, into writer: inout JournalByteWriter) {
        guard let reason, let position = Reason.allCases.firstIndex(of: reason) else { return writer.varint(0) }
        writer.varint(UInt64(position) + 1)
    }

    private static func unpackReason(from reader: inout JournalByteReader) -> Reason? {
        let code = reader.varint()
        guard code > 0 else { return nil }
        let cases = Reason.allCases
        guard code <= UInt64(cases.count) else { return nil }
        return cases[cases.index(cases.startIndex, offsetBy: Int(code) - 1)]
    }

    // MARK: Frames

    private enum DetailsTag: UInt8 {
        case empty, headers, settings, rstStream, goaway, windowUpdate, ping
        /// The header list written whole earlier in the chunk, at the offset that follows.
        case sameHeaders
    }

    /// A header field as text; an id's value in its packed form.
    private static func packField(name: String, value: String, into writer: inout JournalByteWriter) {
        writer.string(name)
        if holdsIdentifier(name) {
            writer.identifier(value)
        } else {
            writer.string(value)
        }
    }

    private static func pack(_ frame: HTTP2FrameRecord, into writer: inout JournalByteWriter) {
        writer.byte(index(of: frame.direction))
        writer.byte(frame.type.wireValue)
        writer.byte(frame.flags)
        writer.signed(Int64(frame.streamID))
        writer.int(frame.length)
        switch frame.details {
        case .empty:
            writer.byte(DetailsTag.empty.rawValue)
        case .headers(let headers):
            // The list a connection's repeated request is recorded with is the previous
            // record's own (one array): it is written once per chunk and named after that.
            if let last = writer.bytes.lastHeaderList, !headers.isEmpty, last.list.count == headers.count,
               last.list.withUnsafeBufferPointer({ $0.baseAddress }) == headers.withUnsafeBufferPointer({ $0.baseAddress }) {
                writer.byte(DetailsTag.sameHeaders.rawValue)
                writer.varint(UInt64(last.offset))
                return
            }
            writer.byte(DetailsTag.headers.rawValue)
            writer.bytes.lastHeaderList = (headers, writer.offset)
            writer.int(headers.count)
            for index in headers.indices {
                packField(name: headers[index].name, value: headers[index].value, into: &writer)
            }
        case .response(let head):
            // A response packs as the list it stands for, `:status` first. The details are
            // taken apart once, not once per field.
            writer.byte(DetailsTag.headers.rawValue)
            writer.int(head.fieldCount)
            for index in 0..<head.fieldCount {
                switch head.field(at: index) {
                case .text(let name, let value):
                    packField(name: name, value: value, into: &writer)
                case .id(let name, let value):
                    writer.string(name)
                    writer.identifier(value)
                }
            }
        case .settings(let settings):
            writer.byte(DetailsTag.settings.rawValue)
            writer.int(settings.count)
            for setting in settings {
                writer.varint(UInt64(setting.identifier))
                writer.varint(UInt64(setting.value))
            }
        case .rstStream(let code):
            writer.byte(DetailsTag.rstStream.rawValue)
            writer.varint(UInt64(code))
        case .goaway(let code, let lastStream, let debugData):
            writer.byte(DetailsTag.goaway.rawValue)
            writer.varint(UInt64(code))
            writer.signed(Int64(lastStream))
            // The frame's `length` keeps how long the debug data was.
            writer.data(keptPrefix(debugData))
        case .windowUpdate(let increment):
            writer.byte(DetailsTag.windowUpdate.rawValue)
            writer.signed(Int64(increment))
        case .ping(let data):
            writer.byte(DetailsTag.ping.rawValue)
            writer.data(data)
        }
    }

    /// Whether a field of this name holds an id, kept in its compact form: both are in every
    /// answer a HEADERS frame carries (`apns-id` in requests that name one too).
    private static func holdsIdentifier(_ name: String) -> Bool {
        name == "apns-id" || name == "apns-unique-id"
    }

    private static func unpackHeaderList(from reader: inout JournalByteReader) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        let count = reader.int()
        while headers.count < count, !reader.failed {
            let name = reader.text()
            let value = holdsIdentifier(name) ? reader.identifier() : reader.string()
            headers.append(HTTPHeader(name: name, value: value ?? ""))
        }
        return headers
    }

    private static func unpackHTTP2Frame(from reader: inout JournalByteReader) -> HTTP2FrameRecord? {
        guard let direction = value(HTTP2FrameRecord.Direction.self, at: reader.byte()) else { return nil }
        let type = HTTP2FrameType(wireValue: reader.byte())
        let flags = reader.byte()
        let streamID = Int32(truncatingIfNeeded: reader.signed())
        let length = reader.int()
        let details: HTTP2FrameRecord.Details
        switch DetailsTag(rawValue: reader.byte()) {
        case .empty:
            details = .empty
        case .headers:
            details = .headers(unpackHeaderList(from: &reader))
        case .sameHeaders:
            // A list written earlier in the chunk: read there, where it was written whole.
            let offset = reader.varint()
            guard offset < UInt64(reader.position) else { return nil }
            var earlier = JournalByteReader(reader.chunk, at: Int(offset))
            let headers = unpackHeaderList(from: &earlier)
            guard !earlier.failed else { return nil }
            details = .headers(headers)
        case .settings:
            var settings: [HTTP2Setting] = []
            let count = reader.int()
            while settings.count < count, !reader.failed {
                let identifier = UInt16(truncatingIfNeeded: reader.varint())
                settings.append(HTTP2Setting(identifier: identifier, value: UInt32(truncatingIfNeeded: reader.varint())))
            }
            details = .settings(settings)
        case .rstStream:
            details = .rstStream(errorCode: UInt32(truncatingIfNeeded: reader.varint()))
        case .goaway:
            let code = UInt32(truncatingIfNeeded: reader.varint())
            let lastStream = Int32(truncatingIfNeeded: reader.signed())
            details = .goaway(errorCode: code, lastStreamID: lastStream, debugData: reader.data() ?? [])
        case .windowUpdate:
            details = .windowUpdate(increment: Int32(truncatingIfNeeded: reader.signed()))
        case .ping:
            details = .ping(opaqueData: reader.data() ?? [])
        case nil:
            return nil
        }
        return HTTP2FrameRecord(direction: direction, type: type, flags: flags, streamID: streamID, length: length, details: details)
    }

    private static func pack(_ frame: JournalLegacyFrame, into writer: inout JournalByteWriter) {
        writer.byte(frame.command)
        writer.optionalInt64(frame.identifier.map { Int64($0) })
        writer.string(frame.deviceToken)
        writer.optionalInt(frame.payloadLength)
        writer.optionalInt(frame.frameLength)
        writer.string(frame.problem)
        writer.data(frame.rawBytes.map(keptPrefix))
        writer.bool(frame.dropped)
    }

    private static func unpackLegacyFrame(from reader: inout JournalByteReader) -> JournalLegacyFrame {
        JournalLegacyFrame(
            command: reader.byte(),
            identifier: reader.optionalInt64().map { UInt32(truncatingIfNeeded: $0) },
            deviceToken: reader.string(), payloadLength: reader.optionalInt(), frameLength: reader.optionalInt(),
            problem: reader.string(), rawBytes: reader.data(), dropped: reader.bool()
        )
    }

    // MARK: Small enums as their position among all cases

    /// A case's position among `allCases`. `allCases` builds its array on every call, so the
    /// hot kinds' enums are numbered by hand here (no `default:`, so a new case is caught).
    private static func index(of transport: Transport) -> UInt8 {
        switch transport {
        case .http2: 0
        case .legacy: 1
        case .feedback: 2
        case .channelManagement: 3
        case .webPush: 4
        }
    }

    private static func index(of side: ClosingSide) -> UInt8 {
        switch side {
        case .client: 0
        case .server: 1
        }
    }

    private static func index(of direction: HTTP2FrameRecord.Direction) -> UInt8 {
        switch direction {
        case .inbound: 0
        case .outbound: 1
        }
    }

    private static func index(of environment: APNsEnvironment) -> Int {
        switch environment {
        case .sandbox: 0
        case .production: 1
        }
    }

    private static func value<Value: CaseIterable>(_ type: Value.Type, at position: UInt8) -> Value? {
        let cases = Value.allCases
        guard Int(position) < cases.count else { return nil }
        return cases[cases.index(cases.startIndex, offsetBy: Int(position))]
    }
}
