/// One header field as it arrived or as it is sent, in order. Pseudo-headers keep their
/// colon (`:path`); names are lowercase on the wire. The one header type of every module: the
/// HTTP/2 session decodes a request's fields into these, the decision core reads them, and
/// the journal records the same values.
package struct HTTPHeader: Sendable, Hashable, CustomStringConvertible {
    package var name: String
    /// The value, decoded as UTF-8 (bytes that are not become U+FFFD).
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    package var description: String { "\(name): \(value)" }

    /// Whether `name` is a pseudo-header field's (`:status`, `:path`, ...). Its first byte is
    /// read: `hasPrefix` can resolve to Foundation's locale-aware search, which measured as
    /// costly as the rest of relaying a request's fields.
    @inlinable
    package static func isPseudoField(_ name: String) -> Bool {
        name.utf8.first == UInt8(ascii: ":")
    }

    /// Whether `name` is a connection-specific field, which an HTTP/2 message must not carry
    /// (RFC 9113, section 8.2.2: `connection`, `keep-alive`, `proxy-connection`,
    /// `transfer-encoding`, `upgrade`, and `te`, which a request may carry only as
    /// `trailers`). ASCII letters in either case; compared by length, then byte by byte, so
    /// that checking every field of a relayed request neither lowercases nor hashes a name.
    package static func isConnectionSpecific(_ name: String) -> Bool {
        func named(_ lowercase: StaticString) -> Bool {
            lowercase.withUTF8Buffer { expected in
                name.utf8.elementsEqual(expected) { byte, lower in
                    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
                }
            }
        }
        switch name.utf8.count {
        case 2: return named("te")
        case 7: return named("upgrade")
        case 10: return named("connection") || named("keep-alive")
        case 16: return named("proxy-connection")
        case 17: return named("transfer-encoding")
        default: return false
        }
    }
}

extension HTTPHeader {
    /// A field's name or value as text, from its bytes as decoded. Bytes that are not UTF-8
    /// are written `\xHH`, so a record shows the bytes sent rather than U+FFFD (HTTP/2 allows
    /// any octet but NUL, CR and LF in a value).
    package static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard !bytes.isEmpty else { return "" }
        // Header fields are nearly always ASCII: decoded on the fast path, without the generic
        // validation (which costs a metadata lookup per field on every request).
        let decoded = String(decoding: bytes, as: UTF8.self)
        if !bytes.contains(where: { $0 >= 0x80 }) || decoded.utf8.elementsEqual(bytes) { return decoded }
        return escapingInvalidUTF8(bytes)
    }

    /// The text of `bytes` with each byte that is not part of a UTF-8 character written `\xHH`.
    package static func escapingInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var text = ""
        text.reserveCapacity(bytes.count + 8)
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var index = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                text.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                index += encoded.count
            case .error(let length):
                for byte in bytes[index..<min(index + length, bytes.count)] {
                    text += "\\x" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
                }
                index += length
            case .emptyInput:
                return text
            }
        }
    }
}
