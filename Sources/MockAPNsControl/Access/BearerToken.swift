import MockAPNsCore
import Crypto

/// The secret a request from another machine must carry to use the control API, as
/// `Authorization: Bearer <token>` (RFC 6750).
///
/// It never prints itself: `description`, `debugDescription` and reflection all say
/// `<control token>`, so a configuration or an error written to a log cannot leak it. Only
/// `value` gives it out, for the one line that hands a generated token to the user.
package struct BearerToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token itself.
    package let value: String

    /// The lengths accepted for a token the user chooses.
    package static let lengthRange = 16...256

    /// Checks a token the user chose: 16 to 256 characters of RFC 6750's token alphabet
    /// (letters, digits, `-._~+/`, then `=` padding), so it can travel in a header as is.
    package init(_ value: String) throws(BearerTokenError) {
        let bytes = Array(value.utf8)
        guard Self.lengthRange.contains(bytes.count) else { throw .length(bytes.count) }
        let body = bytes.reversed().drop(while: { $0 == UInt8(ascii: "=") })
        guard !body.isEmpty, body.allSatisfy(Self.isTokenByte) else { throw .characters }
        self.value = value
    }

    private init(generated: String) {
        value = generated
    }

    /// A fresh token: 32 bytes from the system's secure random source, base64url (43 characters).
    package static func generate() -> BearerToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return BearerToken(generated: Base64URL.encode(bytes))
    }

    /// Whether `authorization` (an `Authorization` header value) is `Bearer` with this token.
    /// The comparison takes the same time whatever the two tokens share: both are hashed and
    /// every byte of the digests is compared, so timing tells nothing about how close a guess was.
    package func isPresented(in authorization: String?) -> Bool {
        guard let presented = ControlAccessPolicy.bearerCredentials(authorization) else { return false }
        let expected = SHA256.hash(data: Array(value.utf8))
        let given = SHA256.hash(data: Array(presented.utf8))
        var difference: UInt8 = 0
        for (left, right) in zip(expected, given) {
            difference |= left ^ right
        }
        return difference == 0
    }

    package var description: String { "<control token>" }
    package var debugDescription: String { "<control token>" }
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}

/// A control token the user chose that cannot be used.
package enum BearerTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    case length(Int)
    case characters

    package var description: String {
        switch self {
        case .length(let count):
            "a control token must be \(BearerToken.lengthRange.lowerBound) to \(BearerToken.lengthRange.upperBound) characters long, not \(count)"
        case .characters:
            "a control token may hold only letters, digits and - . _ ~ + / (then = padding), so it travels in a header as is"
        }
    }
}
