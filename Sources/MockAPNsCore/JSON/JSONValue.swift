/// A JSON document parsed with the position of every value, so configuration and scenario
/// errors can point at the exact line and column of a mistake.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Numbers keep their source text so integers never lose precision.
    case number(String)
    case string(String)
    case array([JSONNode])
    /// Members in document order (duplicates are rejected by the parser).
    case object([JSONMember])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
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
    public var kindDescription: String {
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
public struct JSONMember: Sendable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: JSONNode

    public init(key: String, keyPosition: SourcePosition, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

/// A value and where it starts in the source text.
public struct JSONNode: Sendable, Equatable {
    public var value: JSONValue
    public var position: SourcePosition

    public init(value: JSONValue, position: SourcePosition) {
        self.value = value
        self.position = position
    }
}

/// A 1-based line and column (columns count Unicode scalars).
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}

/// A mistake in a JSON file: where it is, the JSON path of the value, and what was expected.
public struct JSONFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `$.http2.port` style path; `$` for the document itself or a syntax error.
    public var path: String
    public var position: SourcePosition
    public var message: String

    public init(path: String, position: SourcePosition, message: String) {
        self.path = path
        self.position = position
        self.message = message
    }

    public var description: String { "\(position): \(path): \(message)" }
}
