/// A TLS alert description (RFC 8446 section 6; RFC 5246 for the older ones), named as the
/// RFC names it. The one table of alert names: scenario files, the TLS handler's reports and
/// the journal all read it.
package struct TLSAlert: Sendable, Hashable, CustomStringConvertible {
    /// The one-byte alert description sent on the wire.
    package let code: UInt8

    package init(code: UInt8) {
        self.code = code
    }

    package static let closeNotify = TLSAlert(code: 0)
    package static let unexpectedMessage = TLSAlert(code: 10)
    package static let badRecordMAC = TLSAlert(code: 20)
    package static let handshakeFailure = TLSAlert(code: 40)
    package static let badCertificate = TLSAlert(code: 42)
    package static let certificateRevoked = TLSAlert(code: 44)
    package static let certificateExpired = TLSAlert(code: 45)
    package static let certificateUnknown = TLSAlert(code: 46)
    package static let illegalParameter = TLSAlert(code: 47)
    package static let unknownCA = TLSAlert(code: 48)
    package static let decodeError = TLSAlert(code: 50)
    package static let decryptError = TLSAlert(code: 51)
    package static let protocolVersion = TLSAlert(code: 70)
    package static let insufficientSecurity = TLSAlert(code: 71)
    package static let internalError = TLSAlert(code: 80)
    package static let missingExtension = TLSAlert(code: 109)
    package static let unrecognizedName = TLSAlert(code: 112)
    package static let certificateRequired = TLSAlert(code: 116)
    package static let noApplicationProtocol = TLSAlert(code: 120)

    /// Every alert by its RFC name, in code order.
    package static let names: [(name: String, code: UInt8)] = [
        ("close_notify", 0), ("unexpected_message", 10), ("bad_record_mac", 20),
        ("record_overflow", 22), ("handshake_failure", 40), ("bad_certificate", 42),
        ("unsupported_certificate", 43), ("certificate_revoked", 44), ("certificate_expired", 45),
        ("certificate_unknown", 46), ("illegal_parameter", 47), ("unknown_ca", 48),
        ("access_denied", 49), ("decode_error", 50), ("decrypt_error", 51),
        ("protocol_version", 70), ("insufficient_security", 71), ("internal_error", 80),
        ("inappropriate_fallback", 86), ("user_canceled", 90), ("no_renegotiation", 100),
        ("missing_extension", 109), ("unsupported_extension", 110), ("unrecognized_name", 112),
        ("bad_certificate_status_response", 113), ("unknown_psk_identity", 115),
        ("certificate_required", 116), ("no_application_protocol", 120),
    ]

    /// The RFC name, e.g. `certificate_expired`; unknown codes read `alert_<code>`.
    package var name: String {
        Self.names.first { $0.code == code }?.name ?? "alert_\(code)"
    }

    package var description: String {
        "\(name) (\(code))"
    }

    /// The TLS record carrying this alert as fatal: content type 21, version TLS 1.2, length 2.
    package var record: [UInt8] { [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, code] }
}
