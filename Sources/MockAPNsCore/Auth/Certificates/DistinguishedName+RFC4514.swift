import SwiftASN1
import X509

extension DistinguishedName {
    /// The name as an RFC 4514 string: most specific RDN first, short names for the attribute
    /// types RFC 4514 lists (including `UID`, which swift-certificates prints as a dotted OID),
    /// the dotted OID for anything else.
    var rfc4514String: String {
        reversed().map { rdn in
            rdn.map { attribute in
                "\(Self.shortName(for: attribute.type))=\(Self.value(of: attribute.value))"
            }.joined(separator: "+")
        }.joined(separator: ",")
    }

    /// The first value of the attribute `type` in this name, if it is a string.
    func firstString(of type: ASN1ObjectIdentifier) -> String? {
        for rdn in self {
            for attribute in rdn where attribute.type == type {
                if let value = String(attribute.value) { return value }
            }
        }
        return nil
    }

    private static func shortName(for type: ASN1ObjectIdentifier) -> String {
        switch type {
        case .RDNAttributeType.commonName: return "CN"
        case .RDNAttributeType.countryName: return "C"
        case .RDNAttributeType.localityName: return "L"
        case .RDNAttributeType.stateOrProvinceName: return "ST"
        case .RDNAttributeType.organizationName: return "O"
        case .RDNAttributeType.organizationalUnitName: return "OU"
        case .RDNAttributeType.streetAddress: return "STREET"
        case .RDNAttributeType.domainComponent: return "DC"
        case ApplePushCertificateOID.userID: return "UID"
        default: return String(describing: type)
        }
    }

    private static func value(of value: RelativeDistinguishedName.Attribute.Value) -> String {
        // String values: swift-certificates already escapes them as RFC 4514 asks.
        if String(value) != nil { return String(describing: value) }
        // Anything else: RFC 4514 section 2.4, '#' and the hex of the BER encoding.
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(ASN1Any(value))) != nil else { return "#" }
        return "#" + CertificateHex.lowercase(serializer.serializedBytes)
    }
}

/// Lowercase hex without separators, as certificate fingerprints and serial numbers are shown.
enum CertificateHex {
    static func lowercase<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
