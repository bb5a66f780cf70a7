/// Builds one JSON object as text, member by member: faster than an encoder, and it keeps
/// the key order fixed so the JSONL file reads the same every time.
package struct JSONWriter: Sendable {
    package private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    package init() {
        bytes.reserveCapacity(256)
    }

    /// The text written so far.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Structure

    package mutating func beginObject(_ key: String? = nil) {
        prefix(key)
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    package mutating func beginArray(_ key: String? = nil) {
        prefix(key)
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    // MARK: Values (a `nil` value writes nothing, not even the key)

    package mutating func string(_ key: String?, _ value: String?) {
        guard let value else { return }
        prefix(key)
        Self.appendQuoted(value, to: &bytes)
    }

    package mutating func integer<Value: BinaryInteger>(_ key: String?, _ value: Value?) {
        guard let value else { return }
        prefix(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    package mutating func bool(_ key: String?, _ value: Bool?) {
        guard let value else { return }
        prefix(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    package mutating func strings(_ key: String, _ values: [String]?) {
        guard let values else { return }
        beginArray(key)
        for value in values { string(nil, value) }
        endArray()
    }

    /// A parsed JSON value, written compactly (numbers keep their source text).
    package mutating func value(_ key: String?, _ value: JSONValue) {
        switch value {
        case .null:
            prefix(key)
            bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bool(key, flag)
        case .number(let text): raw(key, json: text)
        case .string(let text): string(key, text)
        case .array(let elements):
            beginArray(key)
            for element in elements { self.value(nil, element.value) }
            endArray()
        case .object(let members):
            beginObject(key)
            for member in members { self.value(member.key, member.value.value) }
            endObject()
        }
    }

    /// Already-encoded JSON, inserted as is.
    package mutating func raw(_ key: String?, json: String) {
        prefix(key)
        bytes.append(contentsOf: json.utf8)
    }

    private mutating func prefix(_ key: String?) {
        if let last = needsComma.indices.last {
            if needsComma[last] { bytes.append(UInt8(ascii: ",")) }
            needsComma[last] = true
        }
        if let key {
            Self.appendQuoted(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// `{"reason":"<reason>"}`, the body of an APNs error and of a GOAWAY's debug data.
    package static func reasonObject(_ reason: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("reason", reason)
        writer.endObject()
        return writer.bytes
    }

    /// `value` as a JSON string literal, quotes included: the one JSON string escaping in
    /// MockAPNs (quotes, backslashes and control characters).
    package static func quoted(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        appendQuoted(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped.
    package static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
