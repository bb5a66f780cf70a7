import MockAPNsCore
import MockAPNsWire
/// What HTTP/2 allows in a response header field a scenario scripts (RFC 9113 §8.2): names are
/// lower-case tokens, the server's own pseudo-headers (`:status`) and connection-specific
/// fields are not the scenario's to send, and values hold no line breaks or NUL.
enum ResponseHeaderRules {
    /// Why `name` cannot be sent, or `nil` when it can.
    static func problem(withName name: String) -> String? {
        if name.isEmpty { return "a header name cannot be empty" }
        if name.hasPrefix(":") {
            return "\"\(name)\" is a pseudo-header; the server writes those itself (the status comes from \"status\")"
        }
        if HTTPHeader.isConnectionSpecific(name) {
            return "\"\(name)\" is a connection-specific header, which HTTP/2 forbids"
        }
        if let bad = name.unicodeScalars.first(where: { !isLowerCaseTokenCharacter($0) }) {
            let shown = bad.properties.isWhitespace || bad.value < 0x20 ? "U+\(String(bad.value, radix: 16, uppercase: true))" : "\"\(bad)\""
            let hint = ("A"..."Z").contains(String(bad)) ? " (HTTP/2 header names are lower case)" : ""
            return "\"\(name)\" is not a valid HTTP/2 header name: \(shown) is not allowed\(hint)"
        }
        return nil
    }

    /// Why `value` cannot be sent, or `nil` when it can.
    static func problem(withValue value: String) -> String? {
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            return "a header value cannot contain CR, LF or NUL"
        }
        return nil
    }

    /// RFC 9110 token characters, without upper-case letters.
    private static func isLowerCaseTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "0"..."9": return true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
        default: return false
        }
    }
}
