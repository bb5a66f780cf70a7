import MockAPNsWire
import MockAPNsCore
/// What the decoder found, in stream order.
package enum LegacyDecoderEvent: Sendable, Equatable {
    /// A frame that passed the codec's checks.
    case notification(LegacyNotification)
    /// A frame the codec refused. If `endsStream` is set, nothing after it is decoded.
    case invalidFrame(LegacyFrameError)
    /// A likely provider mistake, reported just before the frame event it concerns.
    case diagnosis(LegacyDiagnosis)
}

/// A frame the decoder has begun and is waiting to complete.
package struct LegacyIncompleteFrame: Sendable, Equatable {
    /// Its command byte.
    package var command: UInt8
    /// Bytes of it received so far.
    package var received: Int
    /// Bytes it must have before it can be judged: the whole frame once its header has said
    /// how long it is, else as much of the header as says so.
    package var awaited: Int

    package init(command: UInt8, received: Int, awaited: Int) {
        self.command = command
        self.received = received
        self.awaited = awaited
    }
}

/// Turns the bytes of one legacy-gateway connection into notifications, as they arrive.
///
/// Feed it whatever each read returned: one byte, half a frame, or hundreds of frames. Whole
/// frames are decoded in place from the bytes given, without copying; only a frame split
/// across reads is copied, into a small pending buffer that holds at most that one frame and
/// takes from the next read only the bytes the frame still lacks. Nothing a client sends can
/// make it hold more than `LegacyLimits.maximumFrameLength` bytes.
///
/// Notifications and errors are the same however the stream is split. Diagnoses that look
/// past a frame (a payload cut short whose tail became the next "frame", a token left out)
/// use only the bytes of the same read, so they are best-effort, and so is an error's
/// explanation drawn from them (`LegacyFrameError.splitInvariant` is what stays the same; the
/// status Apple's gateway answered is the same either way).
package struct LegacyFrameDecoder: Sendable {
    /// Receives each event, and with a notification its payload already examined when the
    /// decoder examined it (to diagnose it), so nothing examines it again.
    package typealias Emit = (LegacyDecoderEvent, _ examined: PayloadJSON?) -> Void

    package let limits: LegacyLimits
    /// Whether frames are checked for common provider mistakes (`LegacyDiagnosis`). Costs a
    /// JSON syntax scan per payload.
    package let detectsMistakes: Bool

    /// Bytes passed over without being decoded: oversized payloads already reported, and
    /// everything after a frame that ended the stream.
    package private(set) var discardedByteCount = 0

    private enum State: Sendable {
        /// The next byte starts a frame (possibly one already begun in `pending`).
        case atFrameStart
        /// The rest of a rejected frame, this many bytes, is still to be passed over.
        case skipping(remaining: Int)
        /// Frame boundaries are lost; everything else is discarded.
        case stopped
    }

    private var state = State.atFrameStart
    /// The beginning of a frame split across reads; empty between frames.
    private var pending: [UInt8] = []
    /// Frames decided so far (accepted or refused).
    package private(set) var framesSeen = 0
    /// The hex token of the last notification read: the next one to the same device shares
    /// its string.
    private var lastDeviceToken = ""
    /// Where the notifications' payloads are copied, to be shared by their decisions and records.
    private var arena = ByteArena()
    /// Byte-swapped identifiers are pointed out once per connection, not on every frame.
    private var reportedSwappedIdentifier = false

    package init(limits: LegacyLimits = .standard, detectsMistakes: Bool = true) {
        self.limits = limits
        self.detectsMistakes = detectsMistakes
    }

    /// Whether a frame ended the stream; later bytes are only counted.
    package var hasStopped: Bool {
        if case .stopped = state { return true }
        return false
    }

    /// Bytes of an incomplete frame waiting for the next read.
    package var bufferedByteCount: Int { pending.count }

    /// The frame begun but not yet complete, while the decoder waits for the rest of it.
    package var incompleteFrame: LegacyIncompleteFrame? {
        guard case .atFrameStart = state, let command = pending.first,
              case .needMore(let total) = pending.withUnsafeBytes({ LegacyFrameParser.scan($0, limits: limits) })
        else { return nil }
        return LegacyIncompleteFrame(command: command, received: pending.count, awaited: total)
    }

    /// Decodes `bytes`, calling `emit` for each event in stream order.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: Emit) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .stopped:
                discardedByteCount += bytes.count - index
                return
            case .skipping(let remaining):
                let count = min(remaining, bytes.count - index)
                index += count
                discardedByteCount += count
                state = count == remaining ? .atFrameStart : .skipping(remaining: remaining - count)
            case .atFrameStart:
                let rest = bytes.legacySuffix(from: index)
                index += pending.isEmpty ? decodeInPlace(rest, emit) : completePending(rest, emit)
            }
        }
    }

    /// Decodes `bytes` and returns the events.
    package mutating func feed(_ bytes: [UInt8]) -> [LegacyDecoderEvent] {
        var events: [LegacyDecoderEvent] = []
        bytes.withUnsafeBytes { feed($0) { event, _ in events.append(event) } }
        return events
    }

    /// Handles the frame at the start of `bytes` without copying it. Returns the bytes used.
    private mutating func decodeInPlace(_ bytes: UnsafeRawBufferPointer, _ emit: Emit) -> Int {
        switch LegacyFrameParser.scan(bytes, limits: limits) {
        case .needMore:
            pending.append(contentsOf: bytes)
            return bytes.count
        case .decided(let decision):
            return handle(decision, frameStart: bytes, emit)
        }
    }

    /// Adds to the pending frame only the bytes it still needs, and handles it once it is
    /// decidable. Returns the bytes used from `bytes`.
    private mutating func completePending(_ bytes: UnsafeRawBufferPointer, _ emit: Emit) -> Int {
        var used = 0
        while true {
            let decision: LegacyFrameParser.Decision
            switch pending.withUnsafeBytes({ LegacyFrameParser.scan($0, limits: limits) }) {
            case .needMore(let total):
                let take = min(total - pending.count, bytes.count - used)
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used..<used + take]))
                used += take
                if pending.count < total { return used }
                continue
            case .decided(let decided):
                decision = decided
            }
            // `pending` was grown exactly to the length `scan` asked for, so the frame (or the
            // part of it that decided its fate) is all of `pending`, and what follows it is
            // still in `bytes`. Swapping the buffer out keeps its capacity for the next split.
            var frame: [UInt8] = []
            swap(&frame, &pending)
            frame.withUnsafeBytes { frameBytes in
                _ = handle(decision, frameStart: frameBytes, following: bytes.legacySuffix(from: used), emit)
            }
            frame.removeAll(keepingCapacity: true)
            swap(&frame, &pending)
            return used
        }
    }

    /// Acts on the decision about the frame at the start of `frameStart`. `following` is what
    /// came after the frame in the same read when the frame was copied out (otherwise it is
    /// the rest of `frameStart`). Returns the frame's bytes consumed.
    private mutating func handle(
        _ decision: LegacyFrameParser.Decision,
        frameStart: UnsafeRawBufferPointer,
        following: UnsafeRawBufferPointer? = nil,
        _ emit: Emit
    ) -> Int {
        framesSeen += 1
        switch decision {
        case .complete(let length):
            let frame = frameStart.legacyPrefix(length)
            let parsed = LegacyFrameParser.parse(frame, limits: limits, previousToken: lastDeviceToken, arena: &arena)
            var examined: PayloadJSON?
            if detectsMistakes {
                examined = PayloadJSON(parsed.payload)
                diagnose(parsed, json: examined, following: following ?? frameStart.legacySuffix(from: length), emit)
            }
            switch parsed.result {
            case .success(let notification):
                lastDeviceToken = notification.deviceToken
                emit(.notification(notification), examined)
            case .failure(let error): emit(.invalidFrame(error), nil)
            }
            return length
        case .rejected(var error, let consumed, let skip):
            let after = following ?? frameStart.legacySuffix(from: consumed)
            if detectsMistakes, let diagnosis = diagnose(error, frameStart: frameStart, following: after) {
                emit(.diagnosis(diagnosis), nil)
                // The record, the notice and the log name the cause the diagnosis found.
                error = error.explained(by: diagnosis)
            }
            emit(.invalidFrame(error), nil)
            if let skip {
                state = skip > 0 ? .skipping(remaining: skip) : .atFrameStart
            } else {
                state = .stopped
            }
            return consumed
        }
    }

    private mutating func diagnose(
        _ parsed: LegacyFrameParser.Parsed, json: PayloadJSON?, following: UnsafeRawBufferPointer, _ emit: Emit
    ) {
        let identifier: UInt32?
        switch parsed.result {
        case .success(let notification): identifier = notification.identifier
        case .failure(let error): identifier = error.identifier
        }
        if !reportedSwappedIdentifier, let identifier, let diagnosis = LegacyMistakeDetector.byteSwapped(identifier) {
            reportedSwappedIdentifier = true
            emit(.diagnosis(diagnosis), nil)
        }
        if let diagnosis = LegacyMistakeDetector.asciiHexToken(parsed.token, identifier: identifier) {
            emit(.diagnosis(diagnosis), nil)
        }
        if let json {
            for diagnosis in LegacyMistakeDetector.payload(parsed.payload, json: json, following: following, identifier: identifier) {
                emit(.diagnosis(diagnosis), nil)
            }
        }
    }

    /// Explains a frame rejected from its header alone, when the header shows a known mistake.
    /// `following` is what came after the rejected header in the same read.
    private func diagnose(
        _ error: LegacyFrameError,
        frameStart: UnsafeRawBufferPointer,
        following: UnsafeRawBufferPointer
    ) -> LegacyDiagnosis? {
        switch error.problem {
        case .unknownCommand where framesSeen == 1:
            return LegacyMistakeDetector.otherProtocol(frameStart)
        case .invalidTokenSize(let length):
            return LegacyMistakeDetector.littleEndian(
                .tokenLength, declared: UInt32(length),
                plausible: 1...UInt32(LegacyLimits.protocolMaximumTokenLength), bitWidth: 16)
        case .invalidPayloadSize(let length):
            if let diagnosis = LegacyMistakeDetector.shortToken(
                error, misreadLength: length, frameStart: frameStart, following: following,
                maximumPayloadLength: limits.maximumPayloadLength
            ) {
                return diagnosis
            }
            // A genuinely oversized payload can have any length, so byte-swapped plausibility
            // alone is not enough: either the bytes that follow are JSON of exactly the
            // swapped length, or the length is far beyond anything a payload is.
            guard let diagnosis = LegacyMistakeDetector.littleEndian(
                .payloadLength, declared: UInt32(length),
                plausible: 1...UInt32(limits.maximumPayloadLength), bitWidth: 16),
                case .littleEndianLength(_, _, let swapped) = diagnosis else { return nil }
            let jsonOfSwappedLength = JSONScanner.scanValue(following) == .complete(end: Int(swapped))
            return jsonOfSwappedLength || length >= 4 * max(limits.maximumPayloadLength, 256) ? diagnosis : nil
        case .frameTooLong(let declared, let maximum):
            return LegacyMistakeDetector.littleEndian(
                .frameLength, declared: declared, plausible: 1...UInt32(maximum), bitWidth: 32)
        default:
            return nil
        }
    }
}
