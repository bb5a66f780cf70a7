/// A strict JSON (RFC 8259) syntax check that answers one question: is this payload a JSON
/// object? It builds nothing and allocates nothing; it runs only when the options refuse
/// payloads that are not objects.
enum JSONSyntax {
    /// Containers nested deeper than this are refused rather than risking the stack.
    static let maximumDepth = 512

    /// Whether `bytes` are valid UTF-8 holding exactly one JSON object (whitespace around it
    /// allowed).
    static func isObject(_ bytes: [UInt8]) -> Bool {
        guard isValidUTF8(bytes) else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "{"), scanner.value(depth: 0) else { return false }
            scanner.skipWhitespace()
            return scanner.isAtEnd
        }
    }

    private static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
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

    /// A cursor over the bytes with one method per grammar rule; each consumes what it
    /// matches and returns whether it matched.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { position >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[position] }

        mutating func skipWhitespace() {
            while let byte = peek,
                  byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            position += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard let byte = peek else { return false }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return false
            }
        }

        mutating func object(depth: Int) -> Bool {
            guard depth <= JSONSyntax.maximumDepth, consume(UInt8(ascii: "{")) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            repeat {
                skipWhitespace()
                guard string() else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard value(depth: depth) else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "}"))
        }

        mutating func array(depth: Int) -> Bool {
            guard depth <= JSONSyntax.maximumDepth, consume(UInt8(ascii: "[")) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            repeat {
                skipWhitespace()
                guard value(depth: depth) else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "]"))
        }

        mutating func string() -> Bool {
            guard consume(UInt8(ascii: "\"")) else { return false }
            while let byte = peek {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return true
                case UInt8(ascii: "\\"):
                    guard escape() else { return false }
                case 0x00..<0x20:
                    return false  // control characters must be escaped
                default:
                    continue
                }
            }
            return false
        }

        /// The part of an escape after the backslash.
        mutating func escape() -> Bool {
            guard let byte = peek else { return false }
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                 UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return true
            case UInt8(ascii: "u"):
                for _ in 0..<4 {
                    guard let digit = peek, HexDigits.isHexDigit(digit, allowsUppercase: true) else {
                        return false
                    }
                    position += 1
                }
                return true
            default:
                return false
            }
        }

        mutating func number() -> Bool {
            _ = consume(UInt8(ascii: "-"))
            if !consume(UInt8(ascii: "0")) {
                guard digits() else { return false }
            }
            if consume(UInt8(ascii: ".")) {
                guard digits() else { return false }
            }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                guard digits() else { return false }
            }
            return true
        }

        /// One or more decimal digits.
        mutating func digits() -> Bool {
            let start = position
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                position += 1
            }
            return position > start
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count else { return false }
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            for offset in 0..<count where bytes[position + offset] != expected[offset] {
                return false
            }
            position += count
            return true
        }
    }
}
