internal import COpenSSL

/// A TLS protocol version that a listener or client may allow.
///
/// `description` uses OpenSSL's spelling ("TLSv1.3"), which is also what
/// `TLSSessionInfo.version` reports, so the two compare directly.
package enum TLSVersion: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    case tlsv1
    case tlsv11
    case tlsv12
    case tlsv13

    package static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    package var description: String {
        TLSVersion.name(wireValue: wireValue)
    }

    /// The two-byte value carried on the wire (0x0301 ... 0x0304).
    package var wireValue: UInt16 {
        switch self {
        case .tlsv1: return 0x0301
        case .tlsv11: return 0x0302
        case .tlsv12: return 0x0303
        case .tlsv13: return 0x0304
        }
    }

    var openSSLValue: Int32 {
        Int32(wireValue)
    }

    /// OpenSSL's name for a version number seen on the wire; unknown values (drafts, GREASE)
    /// are shown in hex so nothing a client offers is hidden.
    static func name(wireValue: UInt16) -> String {
        switch wireValue {
        case 0x0002: return "SSLv2"
        case 0x0300: return "SSLv3"
        case 0x0301: return "TLSv1"
        case 0x0302: return "TLSv1.1"
        case 0x0303: return "TLSv1.2"
        case 0x0304: return "TLSv1.3"
        default: return hex(wireValue)
        }
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
