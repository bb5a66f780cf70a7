import SwiftASN1

/// The DER coding of Apple's topic-list extension (`1.2.840.113635.100.6.3.6`, and the same
/// shape under `.3.4`):
///
///     SEQUENCE {
///         UTF8String "com.x",              SEQUENCE { UTF8String "app" },
///         UTF8String "com.x.voip",         SEQUENCE { UTF8String "voip" },
///         UTF8String "com.x.complication", SEQUENCE { UTF8String "complication" }
///     }
///
/// Each topic string is followed by the sequence of its kinds. Reading is lenient about a
/// topic with no kinds sequence and about IA5/Printable strings, because certificates made by
/// hand (with `openssl`) sometimes differ from Apple's; writing always produces the shape above.
package enum CertificateTopicList {
    /// Reads the extension's value (the bytes inside its OCTET STRING).
    package static func decode(_ bytes: ArraySlice<UInt8>) throws(CertificateTopicListError) -> [CertificateTopic] {
        let root: ASN1Node
        do {
            root = try DER.parse(bytes)
        } catch {
            throw CertificateTopicListError("not DER: \(error)")
        }
        guard root.identifier == .sequence, case .constructed(let children) = root.content else {
            throw CertificateTopicListError("expected a SEQUENCE, found \(root.identifier)")
        }

        var entries: [CertificateTopic] = []
        for node in children {
            if node.identifier == .sequence {
                guard !entries.isEmpty else {
                    throw CertificateTopicListError("a kinds SEQUENCE comes before any topic")
                }
                entries[entries.count - 1].kinds += try kinds(in: node)
            } else {
                entries.append(CertificateTopic(topic: try string(node), kinds: []))
            }
        }
        return entries
    }

    /// Writes the extension's value in Apple's shape.
    package static func encode(_ entries: [CertificateTopic]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { list in
            for entry in entries {
                try list.serialize(ASN1UTF8String(entry.topic))
                try list.appendConstructedNode(identifier: .sequence) { kinds in
                    for kind in entry.kinds {
                        try kinds.serialize(ASN1UTF8String(kind))
                    }
                }
            }
        }
        return serializer.serializedBytes
    }

    private static func kinds(in node: ASN1Node) throws(CertificateTopicListError) -> [String] {
        guard case .constructed(let children) = node.content else {
            throw CertificateTopicListError("a kinds SEQUENCE is not constructed")
        }
        var kinds: [String] = []
        for child in children {
            kinds.append(try string(child))
        }
        return kinds
    }

    private static func string(_ node: ASN1Node) throws(CertificateTopicListError) -> String {
        do {
            switch node.identifier {
            case .utf8String:
                return String(try ASN1UTF8String(derEncoded: node))
            case .ia5String:
                return String(try ASN1IA5String(derEncoded: node))
            case .printableString:
                return String(try ASN1PrintableString(derEncoded: node))
            default:
                break
            }
        } catch {
            throw CertificateTopicListError("unreadable string: \(error)")
        }
        throw CertificateTopicListError("expected a UTF8String or a SEQUENCE, found \(node.identifier)")
    }
}

/// Apple's topic-list extension is present but not in the expected shape.
package struct CertificateTopicListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in words.
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
