/// The HTTP/2 error codes (RFC 9113, section 7) used in RST_STREAM and GOAWAY: the one table
/// of their names, for the HTTP/2 handler's reports, scenario files and the journal.
package enum HTTP2ErrorCode {
    package static let noError: UInt32 = 0x0
    package static let protocolError: UInt32 = 0x1
    package static let internalError: UInt32 = 0x2
    package static let flowControlError: UInt32 = 0x3
    package static let settingsTimeout: UInt32 = 0x4
    package static let streamClosed: UInt32 = 0x5
    package static let frameSizeError: UInt32 = 0x6
    package static let refusedStream: UInt32 = 0x7
    package static let cancel: UInt32 = 0x8
    package static let compressionError: UInt32 = 0x9
    package static let connectError: UInt32 = 0xa
    package static let enhanceYourCalm: UInt32 = 0xb
    package static let inadequateSecurity: UInt32 = 0xc
    package static let http11Required: UInt32 = 0xd

    /// Every code by its RFC name, in code order.
    package static let names: [(name: String, code: UInt32)] = [
        ("NO_ERROR", noError), ("PROTOCOL_ERROR", protocolError), ("INTERNAL_ERROR", internalError),
        ("FLOW_CONTROL_ERROR", flowControlError), ("SETTINGS_TIMEOUT", settingsTimeout), ("STREAM_CLOSED", streamClosed),
        ("FRAME_SIZE_ERROR", frameSizeError), ("REFUSED_STREAM", refusedStream), ("CANCEL", cancel),
        ("COMPRESSION_ERROR", compressionError), ("CONNECT_ERROR", connectError), ("ENHANCE_YOUR_CALM", enhanceYourCalm),
        ("INADEQUATE_SECURITY", inadequateSecurity), ("HTTP_1_1_REQUIRED", http11Required),
    ]

    /// The RFC name of `code` (`REFUSED_STREAM`), or `nil` for a code the RFC does not name.
    package static func knownName(of code: UInt32) -> String? {
        names.first { $0.code == code }?.name
    }

    /// The RFC name of `code` (`REFUSED_STREAM`), or `UNKNOWN(0x..)`.
    package static func name(of code: UInt32) -> String {
        knownName(of: code) ?? "UNKNOWN(0x\(String(code, radix: 16)))"
    }
}
