/// A JSON document parsed with the position of every value, so configuration and scenario
/// errors can point at the exact line and column of a mistake.
package indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Numbers keep their source text so integers never lose precision.
    case number(String)
    case string(String)
    case array([JSONNode])
    /// Members in document order (duplicates are rejected by the parser).
    case object([JSONMember])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a.map(\.value) == b.map(\.value)
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.value == $1.value.value }
        default: return false
        }
    }

    /// A short name of the value's kind, for error messages ("found string").
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// One member of an object: its name, where the name starts, and its value.
package struct JSONMember: Sendable {
    package var key: String
    package var keyPosition: SourcePosition
    package var value: JSONNode

    package init(key: String, keyPosition: SourcePosition, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

/// A value and where it starts in the source text.
package struct JSONNode: Sendable, Equatable {
    package var value: JSONValue
    package var position: SourcePosition

    package init(value: JSONValue, position: SourcePosition) {
        self.value = value
        self.position = position
    }
}

/// A 1-based line and column (columns count Unicode scalars).
package struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "line \(line), column \(column)" }
}

/// A mistake in a JSON file: where it is, the JSON path of the value, and what was expected.
package struct JSONFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `$.http2.port` style path; `$` for the document itself or a syntax error.
    package var path: String
    package var position: SourcePosition
    package var message: String

    package init(path: String, position: SourcePosition, message: String) {
        self.path = path
        self.position = position
        self.message = message
    }

    package var description: String { "\(position): \(path): \(message)" }
}
