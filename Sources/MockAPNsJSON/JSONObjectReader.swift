/// Reads one JSON object member by member, knowing its own JSON path, so every mistake is
/// reported as "`$.http2.port` (line 3, column 13): expected an integer from 0 to 65535,
/// found a string". Call `finish()` last: members nobody asked for are unknown keys, which
/// are errors (a misspelt option must never be silently ignored).
package struct JSONObjectReader {
    package let path: String
    package let position: SourcePosition
    private let members: [JSONMember]
    private var consumed = Set<String>()

    /// Wraps `node`, which must be an object.
    package init(_ node: JSONNode, path: String = "$") throws(JSONFileError) {
        guard case .object(let members) = node.value else {
            throw JSONFileError(path: path, position: node.position,
                                message: "expected an object, found \(node.value.kindDescription)")
        }
        self.path = path
        self.position = node.position
        self.members = members
    }

    /// The keys present, in document order.
    package var keys: [String] { members.map(\.key) }

    /// The JSON path of a member.
    package func path(of key: String) -> String { "\(path).\(key)" }

    /// The raw node of a member, marking it as understood.
    package mutating func node(_ key: String) -> JSONNode? {
        guard let member = members.first(where: { $0.key == key }) else { return nil }
        consumed.insert(key)
        return member.value
    }

    /// Fails on the first member that no read asked for.
    package func finish(allowed: [String]? = nil) throws(JSONFileError) {
        for member in members where !consumed.contains(member.key) {
            let known = allowed ?? Array(consumed).sorted()
            let hint = known.isEmpty ? "" : "; known keys here: \(known.joined(separator: ", "))"
            throw JSONFileError(path: path(of: member.key), position: member.keyPosition,
                                message: "unknown key \"\(member.key)\"\(hint)")
        }
    }

    private func mismatch(_ key: String, _ node: JSONNode, expected: String) -> JSONFileError {
        JSONFileError(path: path(of: key), position: node.position,
                      message: "expected \(expected), found \(node.value.kindDescription)")
    }

    /// Reports a mistake about a member whose kind was right but whose value was not.
    package func invalid(_ key: String, _ node: JSONNode, _ message: String) -> JSONFileError {
        JSONFileError(path: path(of: key), position: node.position, message: message)
    }

    /// Reports a required member that is absent.
    package func missing(_ key: String, expected: String) -> JSONFileError {
        JSONFileError(path: path(of: key), position: position, message: "missing required key; expected \(expected)")
    }

    package mutating func string(_ key: String) throws(JSONFileError) -> String? {
        guard let node = node(key) else { return nil }
        guard case .string(let value) = node.value else { throw mismatch(key, node, expected: "a string") }
        return value
    }

    package mutating func bool(_ key: String) throws(JSONFileError) -> Bool? {
        guard let node = node(key) else { return nil }
        guard case .bool(let value) = node.value else { throw mismatch(key, node, expected: "true or false") }
        return value
    }

    /// An integer within `range`.
    package mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws(JSONFileError) -> Int64? {
        guard let node = node(key) else { return nil }
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
        guard case .number(let text) = node.value else { throw mismatch(key, node, expected: expected) }
        guard let value = Int64(text), range.contains(value) else {
            throw invalid(key, node, "expected \(expected), found \(text)")
        }
        return value
    }

    /// An unsigned 64-bit integer, written as a JSON number or as a string of decimal digits
    /// (JavaScript's numbers hold integers exactly only up to 2^53, so a tool that passes one
    /// through JavaScript keeps it as a string).
    package mutating func unsigned64(_ key: String) throws(JSONFileError) -> UInt64? {
        guard let node = node(key) else { return nil }
        let expected = "an integer from 0 to \(UInt64.max), as a number or a string of digits"
        let text: String
        switch node.value {
        case .number(let number): text = number
        case .string(let string): text = string
        default: throw mismatch(key, node, expected: expected)
        }
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = UInt64(text) else {
            throw invalid(key, node, "expected \(expected), found \(text.prefix(40))")
        }
        return value
    }

    /// Any finite number within `range`.
    package mutating func double(_ key: String, in range: ClosedRange<Double>) throws(JSONFileError) -> Double? {
        guard let node = node(key) else { return nil }
        let expected = "a number from \(range.lowerBound) to \(range.upperBound)"
        guard case .number(let text) = node.value else { throw mismatch(key, node, expected: expected) }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw invalid(key, node, "expected \(expected), found \(text)")
        }
        return value
    }

    /// A string that must be one of an enum's raw values.
    package mutating func oneOf<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ type: Choice.Type
    ) throws(JSONFileError) -> Choice? where Choice.RawValue == String {
        guard let node = node(key) else { return nil }
        let choices = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .string(let text) = node.value else { throw mismatch(key, node, expected: "one of \(choices)") }
        guard let value = Choice(rawValue: text) else {
            throw invalid(key, node, "expected one of \(choices), found \"\(text)\"")
        }
        return value
    }

    /// A nested object.
    package mutating func object(_ key: String) throws(JSONFileError) -> JSONObjectReader? {
        guard let node = node(key) else { return nil }
        return try JSONObjectReader(node, path: path(of: key))
    }

    /// An array of nodes with their element paths (`$.rules[2]`).
    package mutating func array(_ key: String) throws(JSONFileError) -> [(path: String, node: JSONNode)]? {
        guard let node = node(key) else { return nil }
        guard case .array(let elements) = node.value else { throw mismatch(key, node, expected: "an array") }
        return elements.enumerated().map { ("\(path(of: key))[\($0.offset)]", $0.element) }
    }

    /// An array of strings.
    package mutating func strings(_ key: String) throws(JSONFileError) -> [String]? {
        guard let elements = try array(key) else { return nil }
        var result: [String] = []
        for (elementPath, node) in elements {
            guard case .string(let value) = node.value else {
                throw JSONFileError(path: elementPath, position: node.position,
                                    message: "expected a string, found \(node.value.kindDescription)")
            }
            result.append(value)
        }
        return result
    }
}
