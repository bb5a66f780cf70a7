import MockAPNsCore
/// What is wrong with one frame on the legacy gateway.
///
/// Problems Apple reports with a status byte carry it in `status`. Problems that make the
/// bytes unparseable have no status of their own: the connection's `LegacyParseErrorPolicy`
/// decides between status 128 and a silent close.
package enum LegacyFrameProblem: Sendable, Hashable, CustomStringConvertible {
    /// A zero-length token, or a command-2 frame without item 1. Status 2.
    case missingDeviceToken
    /// A token of a size the limits don't allow. Status 5.
    case invalidTokenSize(length: Int)
    /// A zero-length payload, or a command-2 frame without item 2. Status 4.
    case missingPayload
    /// A payload over the limit. Status 7.
    case invalidPayloadSize(length: Int)
    /// A command-0 or command-1 frame whose token was left out (`legacy.tokenLeftOut`): the
    /// token length field announced `declaredTokenLength` bytes, so the payload length and
    /// the start of the JSON were read as the token, and two bytes of the JSON as a payload
    /// length of `misreadPayloadLength`. Status 7, as Apple's gateway, reading the same bytes,
    /// answered a payload too large: the status is faithful, the words name the cause.
    case tokenLeftOut(declaredTokenLength: Int, misreadPayloadLength: Int)
    /// A priority item other than 5 or 10. Apple's binary documentation allows only these two
    /// and names no status for anything else; the mock answers 255 (unknown), the status the
    /// shared `Reason.badPriority` maps to, so both mouths agree.
    case invalidPriority(UInt8)
    /// An item id outside 1...5. Status 255, as pushy's mock gateway answered.
    case unknownItem(id: UInt8)
    /// The same item twice in one frame. Status 255 (pushy's mock).
    case duplicateItem(id: UInt8)
    /// Identifier or expiry not 4 bytes, or priority not 1 byte. Status 255: the frame is
    /// readable, only the item is wrong.
    case invalidItemLength(id: UInt8, length: Int)
    /// A command-2 frame with length 0. Status 255 (pushy's mock: "frame length < 1").
    case emptyFrame
    /// A first byte that is not command 0, 1 or 2. Unparseable; the stream ends here.
    case unknownCommand(UInt8)
    /// A command-2 length no frame of distinct items can reach (`LegacyLimits.maximumFrameLength`).
    /// Unparseable; rejected as soon as the header is read, and the stream ends here.
    case frameTooLong(declared: UInt32, maximum: Int)
    /// Command-2 items that do not fit the frame (an item runs past the frame's end).
    /// Unparseable, but the frame's own length is known, so the stream goes on.
    case malformedItems
    /// A payload that is not one JSON value, refused because `LegacySessionOptions.invalidJSONPayload`
    /// says so (Apple's gateway is not known to have checked). `offset` is the first bad
    /// byte, `nil` when the JSON stops short. The answer follows the policy, not `status`.
    case payloadNotJSON(offset: Int?)

    /// The status Apple reports, or `nil` when the frame could not be parsed at all.
    package var status: LegacyStatus? {
        switch self {
        case .missingDeviceToken: return .missingDeviceToken
        case .invalidTokenSize: return .invalidTokenSize
        case .missingPayload: return .missingPayload
        case .invalidPayloadSize, .tokenLeftOut: return .invalidPayloadSize
        case .invalidPriority, .unknownItem, .duplicateItem, .invalidItemLength, .emptyFrame:
            return .unknown
        case .unknownCommand, .frameTooLong, .malformedItems, .payloadNotJSON:
            return nil
        }
    }

    /// The APNs reason that names the problem, for the notification record; `nil` for
    /// problems only the binary protocol has (unknown items, unparseable bytes).
    package var reason: Reason? {
        switch self {
        case .missingDeviceToken, .tokenLeftOut: return .missingDeviceToken
        case .invalidTokenSize: return .badDeviceToken
        case .missingPayload: return .payloadEmpty
        case .invalidPayloadSize: return .payloadTooLarge
        case .invalidPriority: return .badPriority
        case .unknownItem, .duplicateItem, .invalidItemLength, .emptyFrame, .unknownCommand, .frameTooLong,
             .malformedItems, .payloadNotJSON:
            return nil
        }
    }

    /// The problem in plain words, for logs and the journal.
    package var description: String {
        switch self {
        case .missingDeviceToken: return "missing device token"
        case .invalidTokenSize(let length): return "invalid token size (\(length) bytes)"
        case .missingPayload: return "missing payload"
        case .invalidPayloadSize(let length): return "payload too large (\(length) bytes)"
        case .tokenLeftOut(let declared, let misread):
            return "token left out: the token length field says \(declared) bytes but the payload length follows it, "
                + "so the payload was read as the token and two bytes of its JSON as a payload length of \(misread)"
        case .invalidPriority(let value): return "invalid priority \(value) (only 5 and 10 are allowed)"
        case .unknownItem(let id): return "unknown item id \(id)"
        case .duplicateItem(let id): return "item \(id) appears more than once"
        case .invalidItemLength(let id, let length): return "item \(id) has invalid length \(length)"
        case .emptyFrame: return "frame length 0"
        case .unknownCommand(let byte): return "unknown command \(byte)"
        case .frameTooLong(let declared, let maximum):
            return "frame length \(declared) exceeds the largest possible frame (\(maximum) bytes)"
        case .malformedItems: return "items do not fit the frame length"
        case .payloadNotJSON(let offset?): return "payload is not valid JSON (first bad byte at offset \(offset))"
        case .payloadNotJSON(nil): return "payload is not valid JSON (it stops before the JSON is complete)"
        }
    }
}

/// One frame the codec refused, with what is known about it.
package struct LegacyFrameError: Error, Sendable, Equatable {
    /// The command byte as received (it may be an unknown one).
    package var command: UInt8
    /// The notification's identifier, if it was read before the problem was found.
    package var identifier: UInt32?
    package var problem: LegacyFrameProblem
    /// Whether the decoder lost the frame boundaries here and can read nothing more from
    /// this connection.
    package var endsStream: Bool
    /// The frame's first bytes (at most 64), for the journal.
    package var leadingBytes: [UInt8]
    /// The device token, when the frame was read far enough to find it (possibly of a
    /// size the limits refuse).
    package var token: [UInt8]?
    /// The payload length the frame declared, when it was read that far.
    package var payloadLength: Int?
    /// The payload, when it arrived whole and was refused for what it holds (not JSON).
    package var payload: [UInt8]?

    package init(
        command: UInt8,
        identifier: UInt32?,
        problem: LegacyFrameProblem,
        endsStream: Bool = false,
        leadingBytes: [UInt8] = [],
        token: [UInt8]? = nil,
        payloadLength: Int? = nil,
        payload: [UInt8]? = nil
    ) {
        self.command = command
        self.identifier = identifier
        self.problem = problem
        self.endsStream = endsStream
        self.leadingBytes = leadingBytes
        self.token = token
        self.payloadLength = payloadLength
        self.payload = payload
    }

    /// The status Apple reports, or `nil` when the frame was unparseable.
    package var status: LegacyStatus? { problem.status }

    /// The error as `diagnosis` explains it. A payload "too large" only because the token was
    /// left out is `tokenLeftOut`, without the misread token (the payload length and the start
    /// of the JSON) and with the payload length the frame really holds; any other error is
    /// kept as it is.
    package func explained(by diagnosis: LegacyDiagnosis) -> LegacyFrameError {
        guard case .invalidPayloadSize(let misread) = problem,
              case .tokenShorterThanItsLength(_, let declared, 0, let payloadLength, _, _) = diagnosis else { return self }
        var explained = self
        explained.problem = .tokenLeftOut(declaredTokenLength: declared, misreadPayloadLength: misread)
        explained.token = nil
        explained.payloadLength = payloadLength
        return explained
    }

    /// What of the error is the same however the stream was split into reads. A payload
    /// "too large" may be `explained(by:)` a token left out, which reads the bytes after the
    /// frame in the same read, as the diagnoses do: such an error is kept as the codec refused
    /// it, without the token and payload length the explanation changes. (The status is the
    /// same either way.)
    package var splitInvariant: LegacyFrameError {
        let misread: Int
        switch problem {
        case .invalidPayloadSize(let length): misread = length
        case .tokenLeftOut(_, let length): misread = length
        case .missingDeviceToken, .invalidTokenSize, .missingPayload, .invalidPriority, .unknownItem, .duplicateItem,
             .invalidItemLength, .emptyFrame, .unknownCommand, .frameTooLong, .malformedItems, .payloadNotJSON:
            return self
        }
        var refused = self
        refused.problem = .invalidPayloadSize(length: misread)
        refused.token = nil
        refused.payloadLength = nil
        return refused
    }

    /// How many leading bytes an error keeps for the journal.
    static let leadingByteLimit = 64
}
