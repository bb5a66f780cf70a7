/// Decoders for the few ClientHello extension bodies the server reports. They read untrusted
/// bytes, so every length is checked and malformed input yields `nil` rather than a crash.
enum ClientHelloExtensions {
    static let serverNameType: UInt32 = 0
    static let alpnType: UInt32 = 16
    static let supportedVersionsType: UInt32 = 43

    /// server_name (RFC 6066): a list of (type, name); the host_name entry (type 0) is returned.
    static func serverName(_ body: [UInt8]) -> String? {
        var reader = ByteReader(body)
        guard var list = reader.readVector(lengthBytes: 2) else { return nil }
        while !list.isAtEnd {
            guard let type = list.readUInt8(), let name = list.readVector(lengthBytes: 2) else { return nil }
            if type == 0 {
                return String(decoding: name.remaining, as: UTF8.self)
            }
        }
        return nil
    }

    /// application_layer_protocol_negotiation (RFC 7301): a list of length-prefixed names.
    static func alpnProtocols(_ body: [UInt8]) -> [String]? {
        var reader = ByteReader(body)
        guard var list = reader.readVector(lengthBytes: 2) else { return nil }
        var names: [String] = []
        while !list.isAtEnd {
            guard let name = list.readVector(lengthBytes: 1) else { return nil }
            names.append(String(decoding: name.remaining, as: UTF8.self))
        }
        return names
    }

    /// supported_versions (RFC 8446) in a ClientHello: a list of two-byte versions.
    /// GREASE values (RFC 8701) are dropped; they are noise, not offers.
    static func supportedVersions(_ body: [UInt8]) -> [UInt16]? {
        var reader = ByteReader(body)
        guard var list = reader.readVector(lengthBytes: 1) else { return nil }
        var versions: [UInt16] = []
        while !list.isAtEnd {
            guard let version = list.readUInt16() else { return nil }
            if !isGREASE(version) {
                versions.append(version)
            }
        }
        return versions
    }

    /// The cipher_suites field: two-byte codes, GREASE removed.
    static func cipherSuiteCodes(_ bytes: [UInt8]) -> [UInt16] {
        var reader = ByteReader(bytes)
        var codes: [UInt16] = []
        while let code = reader.readUInt16() {
            if !isGREASE(code) {
                codes.append(code)
            }
        }
        return codes
    }

    static func isGREASE(_ value: UInt16) -> Bool {
        value & 0x0f0f == 0x0a0a && value >> 8 == value & 0xff
    }
}

/// A bounds-checked cursor over bytes.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var isAtEnd: Bool { index >= bytes.endIndex }

    var remaining: ArraySlice<UInt8> { bytes[index...] }

    mutating func readUInt8() -> UInt8? {
        guard index < bytes.endIndex else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func readUInt16() -> UInt16? {
        guard bytes.endIndex - index >= 2 else { return nil }
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    /// Reads a length prefix of `lengthBytes` bytes and returns a reader over that many bytes.
    mutating func readVector(lengthBytes: Int) -> ByteReader? {
        var length = 0
        for _ in 0..<lengthBytes {
            guard let byte = readUInt8() else { return nil }
            length = length << 8 | Int(byte)
        }
        guard bytes.endIndex - index >= length else { return nil }
        defer { index += length }
        return ByteReader(bytes[index..<(index + length)])
    }
}
