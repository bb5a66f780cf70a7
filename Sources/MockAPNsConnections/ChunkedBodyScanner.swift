/// Follows a chunked request body (RFC 9112, section 7.1) byte by byte, beside NIO's own
/// parser, for the one thing that parser does not tell: the size each chunk declares. A chunk
/// declared larger than the body limit (`8000000000000000`) is refused when its size line is
/// read, not after waiting for bytes that will never come.
///
/// It judges nothing else: a size line it cannot follow ends its part (`untracked`) and NIO's
/// parser, which sees the same bytes, answers the mistake (400).
package struct ChunkedBodyScanner: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// Every byte given belongs to the body; more are due.
        case needsMore
        /// The body ended after this many of the bytes given (the last chunk and its trailer
        /// section): what follows is the next request.
        case ended(consumed: Int)
        /// The chunks declared so far add up to more than the limit (`declared`, at least).
        case tooLarge(declared: Int)
        /// A size line this scanner does not follow; NIO's parser judges it.
        case untracked
    }

    private enum Step: Sendable, Equatable {
        /// Reading a chunk size's hex digits (`value` so far, bounded by the limit).
        case size(value: Int, digits: Int)
        /// After the digits: chunk extensions or the CR, up to the line's LF.
        case sizeLineRest(value: Int)
        /// Inside a chunk's data.
        case data(remaining: Int)
        /// After a chunk's data: its CRLF.
        case dataLineEnd
        /// The trailer section after the last chunk: lines up to an empty one.
        case trailer(lineIsEmpty: Bool)
    }

    private let limit: Int
    private var step = Step.size(value: 0, digits: 0)
    /// What the chunks declared so far add up to.
    private var declared = 0

    /// - Parameter limit: the most body bytes the listener takes.
    package init(limit: Int) {
        self.limit = limit
    }

    /// Reads `bytes`, the body's next bytes (and perhaps what follows it).
    package mutating func scan(_ bytes: some Collection<UInt8>) -> Outcome {
        var index = bytes.startIndex
        var consumed = 0
        while index != bytes.endIndex {
            if case .data(let remaining) = step {
                // A chunk's data is skipped in one step, whatever its length.
                let available = bytes.distance(from: index, to: bytes.endIndex)
                let skipped = min(remaining, available)
                index = bytes.index(index, offsetBy: skipped)
                consumed += skipped
                step = remaining == skipped ? .dataLineEnd : .data(remaining: remaining - skipped)
                continue
            }
            let byte = bytes[index]
            index = bytes.index(after: index)
            consumed += 1
            switch step {
            case .size(let value, let digits):
                if let digit = Self.hexValue(byte) {
                    let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 16)
                    let (next, digitOverflow) = shifted.addingReportingOverflow(digit)
                    let (total, totalOverflow) = declared.addingReportingOverflow(next)
                    if shiftOverflow || digitOverflow || totalOverflow { return .tooLarge(declared: .max) }
                    if total > limit { return .tooLarge(declared: total) }
                    step = .size(value: next, digits: digits + 1)
                } else if digits > 0, byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
                    || byte == UInt8(ascii: "\r") {
                    step = .sizeLineRest(value: value)
                } else if digits > 0, byte == UInt8(ascii: "\n") {
                    endSizeLine(value)
                } else {
                    return .untracked
                }
            case .sizeLineRest(let value):
                if byte == UInt8(ascii: "\n") { endSizeLine(value) }
            case .dataLineEnd:
                if byte == UInt8(ascii: "\n") { step = .size(value: 0, digits: 0) }
            case .trailer(let lineIsEmpty):
                if byte == UInt8(ascii: "\n") {
                    if lineIsEmpty { return .ended(consumed: consumed) }
                    step = .trailer(lineIsEmpty: true)
                } else if byte != UInt8(ascii: "\r") {
                    step = .trailer(lineIsEmpty: false)
                }
            case .data:
                break  // handled above
            }
        }
        return .needsMore
    }

    private mutating func endSizeLine(_ value: Int) {
        declared += value
        step = value == 0 ? .trailer(lineIsEmpty: true) : .data(remaining: value)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
