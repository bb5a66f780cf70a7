internal import COpenSSL
import NIOCore

/// The names a server certificate is valid for (its subjectAltName DNS names and IP
/// addresses), read once when the context is built. A client that refuses the certificate
/// because the name it asked for is not among them must be told both sides: "give it the
/// CA" would send its developer after the wrong problem.
struct ServerCertificateNames: Sendable, Equatable {
    var dnsNames: [String]
    var ipAddresses: [String]

    init(dnsNames: [String], ipAddresses: [String]) {
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
    }

    /// The leaf certificate's names in `context`; `nil` when it has none installed.
    init?(leafOf context: OpaquePointer) {
        guard let certificate = SSL_CTX_get0_certificate(context) else { return nil }
        var dnsNames: [String] = []
        var ipAddresses: [String] = []
        if let extensionValue = X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil) {
            let names = OpaquePointer(extensionValue)
            defer { GENERAL_NAMES_free(names) }
            for index in 0..<max(0, OPENSSL_sk_num(names)) {
                guard let item = OPENSSL_sk_value(names, index) else { continue }
                let name = item.assumingMemoryBound(to: GENERAL_NAME.self).pointee
                switch name.type {
                case GEN_DNS:
                    if let text = Self.bytes(of: name.d.dNSName) { dnsNames.append(String(decoding: text, as: UTF8.self)) }
                case GEN_IPADD:
                    if let address = Self.bytes(of: name.d.iPAddress).flatMap(Self.ipAddressText) { ipAddresses.append(address) }
                default:
                    // Other kinds (e-mail, URI, directory names) do not name a TLS server.
                    continue
                }
            }
        }
        self.init(dnsNames: dnsNames, ipAddresses: ipAddresses)
    }

    /// Whether `serverName` (a host name sent as SNI) is one of the DNS names, by the rules
    /// TLS clients use (RFC 6125): letters compared without case, and a wildcard only as the
    /// whole leftmost label, standing for exactly one label.
    func covers(serverName: String) -> Bool {
        let asked = Self.normalized(serverName)
        return dnsNames.contains { pattern in
            let pattern = Self.normalized(pattern)
            guard pattern.hasPrefix("*.") else { return pattern == asked }
            guard let dot = asked.firstIndex(of: "."), asked.startIndex != dot else { return false }
            return asked[dot...] == pattern.dropFirst()
        }
    }

    /// The names for a message: `DNS names [a, b] and IP addresses [c]`.
    var described: String {
        guard !dnsNames.isEmpty || !ipAddresses.isEmpty else {
            return "no DNS name or IP address (no subjectAltName, which clients require)"
        }
        var parts: [String] = []
        if !dnsNames.isEmpty { parts.append("DNS names [\(dnsNames.joined(separator: ", "))]") }
        if !ipAddresses.isEmpty { parts.append("IP addresses [\(ipAddresses.joined(separator: ", "))]") }
        return parts.joined(separator: " and ")
    }

    private static func normalized(_ name: String) -> String {
        let lower = name.lowercased()
        // A trailing dot (a fully qualified name) names the same host.
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8]? {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(max(0, ASN1_STRING_length(string)))))
    }

    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address as clients write it.
    private static func ipAddressText(_ packed: [UInt8]) -> String? {
        guard packed.count == 4 || packed.count == 16 else { return nil }
        return (try? SocketAddress(packedIPAddress: ByteBuffer(bytes: packed), port: 0))?.ipAddress
    }
}
