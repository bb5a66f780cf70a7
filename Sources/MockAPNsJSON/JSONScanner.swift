/// The one JSON (RFC 8259) syntax checker: it builds nothing, and answers where the first
/// JSON value in some bytes ends, or why there is none.
///
/// Two questions rest on it: whether a notification payload is a JSON object (`isObject`,
/// when the options refuse anything else), and, on the legacy gateway, where a payload's JSON
/// ends, which tells a length prefix that is too long (the JSON ends early) from one that is
/// too short (the JSON is cut off). It is iterative, so a payload of 60,000 `[` cannot exhaust
/// the stack, and it allocates only when nesting goes deeper than 64. `scanValue` checks the
/// grammar but not UTF-8 validity inside strings; `isObject` checks both.
package enum JSONScanner {
    /// `isObject` refuses containers nested deeper than this (APNs payloads are small).
    package static let objectMaximumDepth = 512

    package enum Outcome: Equatable {
        /// A complete value; `end` is the offset just after it (trailing bytes not examined).
        case complete(end: Int)
        /// The bytes stop in the middle of a value.
        case truncated
        /// Not JSON: the first offending byte.
        case invalid(offset: Int)
    }

    /// Scans the first JSON value in `bytes`, after optional leading whitespace. A container
    /// opened deeper than `maximumDepth` is invalid at its opening bracket.
    package static func scanValue(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = .max) -> Outcome {
        var reader = Reader(bytes: bytes, maximumDepth: maximumDepth)
        return reader.scan()
    }

    /// Whether `bytes` are valid UTF-8 holding exactly one JSON object (whitespace around it
    /// allowed), nested at most `objectMaximumDepth` deep.
    package static func isObject(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { examine($0).isObject }
    }

    /// One pass over `bytes` for every question asked of a payload: where it stops being one
    /// JSON value (if it does), whether it is one JSON value in valid UTF-8 with nothing but
    /// whitespace around it (`isDocument`), and whether it is a JSON object as `isObject`
    /// means it.
    package static func examine(
        _ bytes: UnsafeRawBufferPointer
    ) -> (outcome: Outcome, trailing: Int?, isDocument: Bool, isObject: Bool) {
        var reader = Reader(bytes: bytes, maximumDepth: .max)
        let outcome = reader.scan()
        let trailing: Int? = if case .complete(let end) = outcome { firstNonWhitespace(bytes, from: end) } else { nil }
        guard case .complete = outcome, trailing == nil, !reader.sawNonASCII || isValidUTF8(bytes) else {
            return (outcome, trailing, false, false)
        }
        let startsObject = firstNonWhitespace(bytes, from: 0).map { bytes[$0] == UInt8(ascii: "{") } ?? false
        return (outcome, trailing, true, startsObject && reader.deepest <= objectMaximumDepth)
    }

    private static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Whether `bytes` hold exactly one JSON value, with nothing but whitespace around it.
    package static func isValidDocument(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard case .complete(let end) = scanValue(bytes) else { return false }
        return firstNonWhitespace(bytes, from: end) == nil
    }

    /// The offset of the first byte from `start` on that is not JSON whitespace.
    package static func firstNonWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if !isWhitespace(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Which containers are open, innermost last: one bit each, `true` for an object.
    private struct ContainerStack {
        private var inline: UInt64 = 0
        private var overflow: [Bool] = []
        private(set) var depth = 0

        mutating func push(isObject: Bool) {
            if depth < 64 {
                if isObject { inline |= 1 << UInt64(depth) } else { inline &= ~(1 << UInt64(depth)) }
            } else {
                overflow.append(isObject)
            }
            depth += 1
        }

        mutating func pop() {
            depth -= 1
            if depth >= 64 { overflow.removeLast() }
        }

        var topIsObject: Bool {
            depth > 64 ? overflow[overflow.count - 1] : inline & (1 << UInt64(depth - 1)) != 0
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        let maximumDepth: Int
        var index = 0
        var stack = ContainerStack()
        /// The deepest nesting seen.
        var deepest = 0
        /// Whether a string held a byte above 0x7F (only strings may: anywhere else it is
        /// invalid), so only then does UTF-8 validity need a look of its own.
        var sawNonASCII = false

        init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func skipWhitespace() {
            while index < bytes.count, JSONScanner.isWhitespace(bytes[index]) { index += 1 }
        }

        mutating func scan() -> Outcome {
            while true {
                // A value is expected at `index`.
                skipWhitespace()
                guard index < bytes.count else { return .truncated }
                switch bytes[index] {
                case UInt8(ascii: "{") where stack.depth >= maximumDepth, UInt8(ascii: "[") where stack.depth >= maximumDepth:
                    return .invalid(offset: index)
                case UInt8(ascii: "{"):
                    // An empty container counts: `{}` opened at depth n is nested n + 1 deep.
                    deepest = max(deepest, stack.depth + 1)
                    index += 1
                    skipWhitespace()
                    guard index < bytes.count else { return .truncated }
                    if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                    } else {
                        stack.push(isObject: true)
                        if let failure = scanKeyAndColon() { return failure }
                        continue
                    }
                case UInt8(ascii: "["):
                    deepest = max(deepest, stack.depth + 1)
                    index += 1
                    skipWhitespace()
                    guard index < bytes.count else { return .truncated }
                    if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                    } else {
                        stack.push(isObject: false)
                        continue
                    }
                case UInt8(ascii: "\""):
                    if let failure = scanString() { return failure }
                case UInt8(ascii: "t"):
                    if let failure = scanLiteral("true") { return failure }
                case UInt8(ascii: "f"):
                    if let failure = scanLiteral("false") { return failure }
                case UInt8(ascii: "n"):
                    if let failure = scanLiteral("null") { return failure }
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if let failure = scanNumber() { return failure }
                default:
                    return .invalid(offset: index)
                }

                // A value just ended: close containers until one wants another value.
                while true {
                    if stack.depth == 0 { return .complete(end: index) }
                    skipWhitespace()
                    guard index < bytes.count else { return .truncated }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: ",") {
                        if stack.topIsObject, let failure = scanKeyAndColon() { return failure }
                        break
                    } else if byte == (stack.topIsObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        stack.pop()
                    } else {
                        return .invalid(offset: index - 1)
                    }
                }
            }
        }

        /// `"key" :` inside an object.
        mutating func scanKeyAndColon() -> Outcome? {
            skipWhitespace()
            guard index < bytes.count else { return .truncated }
            guard bytes[index] == UInt8(ascii: "\"") else { return .invalid(offset: index) }
            if let failure = scanString() { return failure }
            skipWhitespace()
            guard index < bytes.count else { return .truncated }
            guard bytes[index] == UInt8(ascii: ":") else { return .invalid(offset: index) }
            index += 1
            return nil
        }

        mutating func scanString() -> Outcome? {
            index += 1  // the opening quote
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else { return .truncated }
                    switch bytes[index + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 2
                    case UInt8(ascii: "u"):
                        for offset in 2..<6 {
                            guard index + offset < bytes.count else { return .truncated }
                            guard HexDigits.isHexDigit(bytes[index + offset], allowsUppercase: true) else {
                                return .invalid(offset: index + offset)
                            }
                        }
                        index += 6
                    default:
                        return .invalid(offset: index + 1)
                    }
                case 0x00..<0x20:
                    return .invalid(offset: index)
                case 0x80...:
                    sawNonASCII = true
                    index += 1
                default:
                    index += 1
                }
            }
            return .truncated
        }

        mutating func scanLiteral(_ literal: StaticString) -> Outcome? {
            literal.withUTF8Buffer { expected in
                for (offset, byte) in expected.enumerated() {
                    guard index + offset < bytes.count else { return .truncated }
                    guard bytes[index + offset] == byte else { return .invalid(offset: index + offset) }
                }
                index += expected.count
                return nil
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. A number may end the input
        /// (a bare top-level number is complete); a sign, dot or exponent marker may not.
        mutating func scanNumber() -> Outcome? {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { return .truncated }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if let failure = scanDigits() {
                return failure
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                if let failure = scanDigits() { return failure }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                if let failure = scanDigits() { return failure }
            }
            return nil
        }

        /// One or more decimal digits.
        mutating func scanDigits() -> Outcome? {
            guard index < bytes.count else { return .truncated }
            guard isDigit(bytes[index]) else { return .invalid(offset: index) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return nil
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
