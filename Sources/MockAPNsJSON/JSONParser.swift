/// A small, strict JSON parser (RFC 8259) that records positions. Used for configuration and
/// scenario files, which are small; the hot path never parses JSON with it.
package struct JSONParser {
    private var scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1
    /// Deeper nesting than this is refused rather than risking the stack.
    private static let maximumDepth = 256

    /// Parses `text` into a positioned document.
    package static func parse(_ text: String) throws(JSONFileError) -> JSONNode {
        var parser = JSONParser(scalars: Array(text.unicodeScalars))
        parser.skipWhitespace()
        let node = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < parser.scalars.count {
            throw parser.error("unexpected text after the end of the document")
        }
        return node
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private var position: SourcePosition { SourcePosition(line: line, column: column) }

    private func error(_ message: String) -> JSONFileError {
        JSONFileError(path: "$", position: position, message: message)
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func advance() {
        guard let scalar = current else { return }
        index += 1
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            advance()
        }
    }

    private mutating func expect(_ literal: String) throws(JSONFileError) {
        let start = position
        for expected in literal.unicodeScalars {
            guard current == expected else {
                throw JSONFileError(path: "$", position: start, message: "expected '\(literal)'")
            }
            advance()
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONFileError) -> JSONNode {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        let start = position
        guard let scalar = current else { throw error("unexpected end of the document; expected a value") }
        switch scalar {
        case "{": return JSONNode(value: try parseObject(depth: depth), position: start)
        case "[": return JSONNode(value: try parseArray(depth: depth), position: start)
        case "\"": return JSONNode(value: .string(try parseString()), position: start)
        case "t": try expect("true"); return JSONNode(value: .bool(true), position: start)
        case "f": try expect("false"); return JSONNode(value: .bool(false), position: start)
        case "n": try expect("null"); return JSONNode(value: .null, position: start)
        case "-", "0"..."9": return JSONNode(value: .number(try parseNumber()), position: start)
        default: throw error("unexpected character '\(scalar.escaped(asASCII: true))'; expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONFileError) -> JSONValue {
        advance()  // {
        var members: [JSONMember] = []
        var seen = Set<String>()
        skipWhitespace()
        if current == "}" {
            advance()
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == "\"" else { throw error("expected a member name in double quotes") }
            let keyPosition = position
            let key = try parseString()
            guard seen.insert(key).inserted else {
                throw JSONFileError(path: "$", position: keyPosition, message: "duplicate member \"\(key)\"")
            }
            skipWhitespace()
            guard current == ":" else { throw error("expected ':' after member name \"\(key)\"") }
            advance()
            skipWhitespace()
            members.append(JSONMember(key: key, keyPosition: keyPosition, value: try parseValue(depth: depth + 1)))
            skipWhitespace()
            if current == "," {
                advance()
                continue
            }
            if current == "}" {
                advance()
                return .object(members)
            }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONFileError) -> JSONValue {
        advance()  // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if current == "]" {
            advance()
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            if current == "," {
                advance()
                continue
            }
            if current == "]" {
                advance()
                return .array(elements)
            }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func parseString() throws(JSONFileError) -> String {
        advance()  // opening quote
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = current else { throw error("unterminated string") }
            switch scalar {
            case "\"":
                advance()
                return String(result)
            case "\\":
                advance()
                guard let escape = current else { throw error("unterminated escape sequence") }
                advance()
                switch escape {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "/": result.append("/")
                case "b": result.append("\u{08}")
                case "f": result.append("\u{0C}")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                case "u": result.append(try parseUnicodeEscape())
                default: throw error("invalid escape '\\\(escape)'")
                }
            default:
                guard scalar.value >= 0x20 else { throw error("control character in a string; escape it") }
                result.append(scalar)
                advance()
            }
        }
    }

    private mutating func parseHex4() throws(JSONFileError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = current, let digit = scalar.hexDigitValue else {
                throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(JSONFileError) -> Unicode.Scalar {
        let high = try parseHex4()
        if (0xD800...0xDBFF).contains(high) {
            guard current == "\\" else { throw error("unpaired surrogate in \\u escape") }
            advance()
            guard current == "u" else { throw error("unpaired surrogate in \\u escape") }
            advance()
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in \\u escape") }
            let combined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            guard let scalar = Unicode.Scalar(combined) else { throw error("invalid \\u escape") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate in \\u escape") }
        return scalar
    }

    private mutating func parseNumber() throws(JSONFileError) -> String {
        var text = ""
        func isDigit(_ s: Unicode.Scalar?) -> Bool { s.map { ("0"..."9").contains($0) } ?? false }
        if current == "-" { text.unicodeScalars.append("-"); advance() }
        guard isDigit(current) else { throw error("expected a digit") }
        if current == "0" {
            text.unicodeScalars.append("0"); advance()
        } else {
            while isDigit(current), let s = current { text.unicodeScalars.append(s); advance() }
        }
        if current == "." {
            text.unicodeScalars.append("."); advance()
            guard isDigit(current) else { throw error("expected a digit after the decimal point") }
            while isDigit(current), let s = current { text.unicodeScalars.append(s); advance() }
        }
        if current == "e" || current == "E" {
            text.unicodeScalars.append("e"); advance()
            if current == "+" || current == "-", let s = current { text.unicodeScalars.append(s); advance() }
            guard isDigit(current) else { throw error("expected a digit in the exponent") }
            while isDigit(current), let s = current { text.unicodeScalars.append(s); advance() }
        }
        return text
    }
}

extension Unicode.Scalar {
    fileprivate var hexDigitValue: Int? {
        switch self {
        case "0"..."9": return Int(value - 48)
        case "a"..."f": return Int(value - 97 + 10)
        case "A"..."F": return Int(value - 65 + 10)
        default: return nil
        }
    }
}
