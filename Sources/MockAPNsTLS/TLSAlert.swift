/// A TLS alert description (RFC 8446 section 6), named as the RFC names it.
public struct TLSAlert: Sendable, Hashable, CustomStringConvertible {
    /// The one-byte alert description sent on the wire.
    public let code: UInt8

    public init(code: UInt8) {
        self.code = code
    }

    public static let closeNotify = TLSAlert(code: 0)
    public static let unexpectedMessage = TLSAlert(code: 10)
    public static let badRecordMAC = TLSAlert(code: 20)
    public static let handshakeFailure = TLSAlert(code: 40)
    public static let badCertificate = TLSAlert(code: 42)
    public static let certificateRevoked = TLSAlert(code: 44)
    public static let certificateExpired = TLSAlert(code: 45)
    public static let certificateUnknown = TLSAlert(code: 46)
    public static let illegalParameter = TLSAlert(code: 47)
    public static let unknownCA = TLSAlert(code: 48)
    public static let decodeError = TLSAlert(code: 50)
    public static let decryptError = TLSAlert(code: 51)
    public static let protocolVersion = TLSAlert(code: 70)
    public static let insufficientSecurity = TLSAlert(code: 71)
    public static let internalError = TLSAlert(code: 80)
    public static let missingExtension = TLSAlert(code: 109)
    public static let unrecognizedName = TLSAlert(code: 112)
    public static let certificateRequired = TLSAlert(code: 116)
    public static let noApplicationProtocol = TLSAlert(code: 120)

    /// The RFC name, e.g. `certificate_expired`; unknown codes read `alert_<code>`.
    public var name: String {
        switch code {
        case 0: return "close_notify"
        case 10: return "unexpected_message"
        case 20: return "bad_record_mac"
        case 22: return "record_overflow"
        case 40: return "handshake_failure"
        case 42: return "bad_certificate"
        case 43: return "unsupported_certificate"
        case 44: return "certificate_revoked"
        case 45: return "certificate_expired"
        case 46: return "certificate_unknown"
        case 47: return "illegal_parameter"
        case 48: return "unknown_ca"
        case 49: return "access_denied"
        case 50: return "decode_error"
        case 51: return "decrypt_error"
        case 70: return "protocol_version"
        case 71: return "insufficient_security"
        case 80: return "internal_error"
        case 86: return "inappropriate_fallback"
        case 90: return "user_canceled"
        case 100: return "no_renegotiation"
        case 109: return "missing_extension"
        case 110: return "unsupported_extension"
        case 112: return "unrecognized_name"
        case 113: return "bad_certificate_status_response"
        case 115: return "unknown_psk_identity"
        case 116: return "certificate_required"
        case 120: return "no_application_protocol"
        default: return "alert_\(code)"
        }
    }

    public var description: String {
        "\(name) (\(code))"
    }
}
