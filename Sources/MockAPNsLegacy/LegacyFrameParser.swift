import MockAPNsWire
import MockAPNsCore
/// The frame layouts of commands 0, 1 and 2 as pure functions over bytes that start at a
/// frame boundary. `LegacyFrameDecoder` owns the stream; this type only answers "how long is
/// this frame" and "what does this complete frame say".
enum LegacyFrameParser {
    /// What the bytes at a frame boundary allow the decoder to do next.
    enum Scan {
        /// Nothing can be decided before `total` bytes (counted from the frame's start) are
        /// here. Always more than the bytes given.
        case needMore(total: Int)
        /// The frame's fate is known.
        case decided(Decision)
    }

    /// What to do with the frame at a boundary.
    enum Decision {
        /// A whole frame of `length` bytes is here.
        case complete(length: Int)
        /// The frame is known to be bad from its first `consumed` bytes. If `skip` is set,
        /// that many more bytes belong to it and must be passed over; if it is `nil`, the
        /// frame boundaries are lost and the stream ends.
        case rejected(LegacyFrameError, consumed: Int, skip: Int?)
    }

    /// Sizes of the fixed parts.
    static let simpleHeaderLength = 1 + 2          // command, token length
    static let enhancedHeaderLength = 1 + 4 + 4 + 2 // command, identifier, expiry, token length
    static let frameHeaderLength = 1 + 4           // command, frame length

    /// Decides how far the frame at the start of `bytes` reaches, reading only its headers.
    /// An early rejection keeps only the bytes it was decided on, so its error is the same
    /// however the stream was split into reads.
    ///
    /// Length fields are checked the moment they arrive, so a client that announces far more
    /// than it will ever send gets an answer instead of a connection waiting forever.
    static func scan(_ bytes: UnsafeRawBufferPointer, limits: LegacyLimits) -> Scan {
        var cursor = LegacyByteCursor(bytes)
        guard let commandByte = cursor.readUInt8() else { return .needMore(total: 1) }
        guard let command = LegacyCommand(rawValue: commandByte) else {
            let unknown = error(commandByte, nil, .unknownCommand(commandByte), true, bytes.legacyPrefix(1))
            return .decided(.rejected(unknown, consumed: 1, skip: nil))
        }

        if command == .frame {
            guard let frameLength = cursor.readUInt32() else { return .needMore(total: frameHeaderLength) }
            guard frameLength <= LegacyLimits.maximumFrameLength else {
                let problem = LegacyFrameProblem.frameTooLong(declared: frameLength, maximum: LegacyLimits.maximumFrameLength)
                let tooLong = error(commandByte, nil, problem, true, bytes.legacyPrefix(frameHeaderLength))
                return .decided(.rejected(tooLong, consumed: frameHeaderLength, skip: nil))
            }
            let total = frameHeaderLength + Int(frameLength)
            return bytes.count >= total ? .decided(.complete(length: total)) : .needMore(total: total)
        }

        // Commands 0 and 1: [identifier, expiry,] token length, token, payload length, payload.
        let headerLength = command == .simple ? simpleHeaderLength : enhancedHeaderLength
        var identifier: UInt32?
        if command == .enhanced {
            guard let id = cursor.readUInt32(), cursor.readUInt32() != nil else { return .needMore(total: headerLength) }
            identifier = id
        }
        guard let tokenLength = cursor.readUInt16().map(Int.init) else { return .needMore(total: headerLength) }
        guard tokenLength <= LegacyLimits.tokenLengthReadLimit else {
            let problem = LegacyFrameProblem.invalidTokenSize(length: tokenLength)
            let tooLong = error(commandByte, identifier, problem, true, bytes.legacyPrefix(headerLength))
            return .decided(.rejected(tooLong, consumed: headerLength, skip: nil))
        }
        let payloadLengthEnd = headerLength + tokenLength + 2
        guard cursor.readBytes(tokenLength) != nil, let payloadLength = cursor.readUInt16().map(Int.init) else {
            return .needMore(total: payloadLengthEnd)
        }
        // An oversized payload is reported before it arrives. Its length is known, so the
        // decoder passes over it without buffering and stays in step with later frames.
        if payloadLength > limits.maximumPayloadLength {
            let token = bytes[headerLength..<headerLength + tokenLength]
            let problem = tokenProblem(token.count, limits) ?? .invalidPayloadSize(length: payloadLength)
            var rejected = error(commandByte, identifier, problem, false, bytes.legacyPrefix(payloadLengthEnd))
            rejected.token = [UInt8](UnsafeRawBufferPointer(rebasing: token))
            rejected.payloadLength = payloadLength
            return .decided(.rejected(rejected, consumed: payloadLengthEnd, skip: payloadLength))
        }
        let total = payloadLengthEnd + payloadLength
        return bytes.count >= total ? .decided(.complete(length: total)) : .needMore(total: total)
    }

    /// A complete frame, read.
    struct Parsed {
        var result: Result<LegacyNotification, LegacyFrameError>
        /// Views into the frame's token and payload (empty when absent), kept so that
        /// mistakes can be diagnosed in frames that were rejected too.
        var token = UnsafeRawBufferPointer(start: nil, count: 0)
        var payload = UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// Reads a complete frame (as measured by `scan`) into a notification or an error.
    /// `previousToken` is the hex token of the connection's previous notification: the same
    /// token is given as that string, not a new one. A notification's payload is copied into
    /// `arena`, the connection's, where the decision and the record share it.
    static func parse(
        _ frame: UnsafeRawBufferPointer, limits: LegacyLimits, previousToken: String = "", arena: inout ByteArena
    ) -> Parsed {
        var cursor = LegacyByteCursor(frame)
        let commandByte = cursor.readUInt8() ?? 0xFF
        switch LegacyCommand(rawValue: commandByte) {
        case .simple?, .enhanced?:
            return parseSimpleOrEnhanced(frame, cursor: cursor, limits: limits, previousToken: previousToken, arena: &arena)
        case .frame?:
            return parseItems(frame, cursor: cursor, limits: limits, previousToken: previousToken, arena: &arena)
        case nil:
            return Parsed(result: .failure(error(commandByte, nil, .unknownCommand(commandByte), true, frame)))
        }
    }

    private static func parseSimpleOrEnhanced(
        _ frame: UnsafeRawBufferPointer,
        cursor: LegacyByteCursor,
        limits: LegacyLimits,
        previousToken: String,
        arena: inout ByteArena
    ) -> Parsed {
        var cursor = cursor
        let command: LegacyCommand = frame[0] == LegacyCommand.simple.rawValue ? .simple : .enhanced
        var identifier: UInt32?
        var expiry: UInt32?
        if command == .enhanced {
            identifier = cursor.readUInt32()
            expiry = cursor.readUInt32()
        }
        // `scan` measured this frame, so these reads succeed; the fallbacks only keep
        // malformed input from ever trapping.
        let token = cursor.readUInt16().flatMap { cursor.readBytes(Int($0)) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let payload = cursor.readUInt16().flatMap { cursor.readBytes(Int($0)) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if let problem = tokenProblem(token.count, limits) ?? payloadProblem(payload.count, limits) {
            var failure = error(command.rawValue, identifier, problem, false, frame)
            failure.token = [UInt8](token)
            failure.payloadLength = payload.count
            return Parsed(result: .failure(failure), token: token, payload: payload)
        }
        let notification = LegacyNotification(
            command: command,
            identifier: identifier,
            expiry: expiry,
            deviceToken: lowercaseHex(token, reusing: previousToken),
            payload: arena.copy(payload),
            frameLength: frame.count
        )
        return Parsed(result: .success(notification), token: token, payload: payload)
    }

    /// Command 2. Every item is read even after a problem is found, so that the error can
    /// carry the identifier wherever item 3 sits in the frame.
    private static func parseItems(
        _ frame: UnsafeRawBufferPointer,
        cursor: LegacyByteCursor,
        limits: LegacyLimits,
        previousToken: String,
        arena: inout ByteArena
    ) -> Parsed {
        var cursor = cursor
        _ = cursor.readUInt32()  // the frame length, already checked by `scan`
        let command = LegacyCommand.frame.rawValue
        guard cursor.remaining > 0 else { return Parsed(result: .failure(error(command, nil, .emptyFrame, false, frame))) }

        var token: UnsafeRawBufferPointer?
        var payload: UnsafeRawBufferPointer?
        var identifier: UInt32?
        var expiry: UInt32?
        var priorityByte: UInt8?
        var seen: UInt8 = 0
        var itemProblem: LegacyFrameProblem?

        while cursor.remaining > 0 {
            guard let id = cursor.readUInt8(), let length = cursor.readUInt16().map(Int.init),
                  let data = cursor.readBytes(length) else {
                return Parsed(result: .failure(error(command, identifier, .malformedItems, false, frame)))
            }
            guard let item = LegacyItemID(rawValue: id) else {
                itemProblem = itemProblem ?? .unknownItem(id: id)
                continue
            }
            let bit: UInt8 = 1 << id
            guard seen & bit == 0 else {
                itemProblem = itemProblem ?? .duplicateItem(id: id)
                continue
            }
            seen |= bit
            switch item {
            case .deviceToken: token = data
            case .payload: payload = data
            case .identifier, .expiration:
                guard length == 4 else {
                    itemProblem = itemProblem ?? .invalidItemLength(id: id, length: length)
                    continue
                }
                var field = LegacyByteCursor(data)
                if item == .identifier { identifier = field.readUInt32() } else { expiry = field.readUInt32() }
            case .priority:
                guard length == 1 else {
                    itemProblem = itemProblem ?? .invalidItemLength(id: id, length: length)
                    continue
                }
                priorityByte = data[0]
            }
        }

        // Problems in the order Apple's tables suggest: structure, token, payload, priority.
        var priority: Priority?
        var priorityProblem: LegacyFrameProblem?
        switch priorityByte {
        case nil: break
        case 5?: priority = .powerAware
        case 10?: priority = .immediate
        case let other?: priorityProblem = .invalidPriority(other)
        }
        let problem = itemProblem
            ?? tokenProblem(token?.count ?? 0, limits)
            ?? payloadProblem(payload?.count ?? 0, limits)
            ?? priorityProblem
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        if let problem {
            var failure = error(command, identifier, problem, false, frame)
            failure.token = token.map { [UInt8]($0) }
            failure.payloadLength = payload?.count
            return Parsed(result: .failure(failure), token: token ?? empty, payload: payload ?? empty)
        }
        let notification = LegacyNotification(
            command: .frame,
            identifier: identifier,
            expiry: expiry,
            deviceToken: token.map { lowercaseHex($0, reusing: previousToken) } ?? "",
            payload: payload.map { arena.copy($0) } ?? SharedBytes(),
            priority: priority,
            frameLength: frame.count
        )
        return Parsed(result: .success(notification), token: token ?? empty, payload: payload ?? empty)
    }

    static func tokenProblem(_ length: Int, _ limits: LegacyLimits) -> LegacyFrameProblem? {
        if length == 0 { return .missingDeviceToken }
        return limits.tokenLength.allows(length) ? nil : .invalidTokenSize(length: length)
    }

    static func payloadProblem(_ length: Int, _ limits: LegacyLimits) -> LegacyFrameProblem? {
        if length == 0 { return .missingPayload }
        return length > limits.maximumPayloadLength ? .invalidPayloadSize(length: length) : nil
    }

    private static func error(
        _ command: UInt8,
        _ identifier: UInt32?,
        _ problem: LegacyFrameProblem,
        _ endsStream: Bool,
        _ bytes: UnsafeRawBufferPointer
    ) -> LegacyFrameError {
        LegacyFrameError(
            command: command,
            identifier: identifier,
            problem: problem,
            endsStream: endsStream,
            leadingBytes: [UInt8](bytes.legacyPrefix(LegacyFrameError.leadingByteLimit))
        )
    }
}
