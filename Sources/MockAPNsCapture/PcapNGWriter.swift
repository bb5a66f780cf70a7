/// The blocks of a pcapng file (draft-ietf-opsawg-pcapng): one Section Header Block, the
/// Interface Description Blocks, then an Enhanced Packet Block per packet, each with its
/// options. Little-endian, as the section's byte-order magic says; every block and option
/// padded to 32 bits.
package struct PcapNGWriter: Sendable {
    /// The file so far.
    package private(set) var bytes: [UInt8] = []
    private var interfaces: UInt32 = 0

    package enum BlockType {
        package static let sectionHeader: UInt32 = 0x0A0D_0D0A
        package static let interfaceDescription: UInt32 = 0x0000_0001
        package static let enhancedPacket: UInt32 = 0x0000_0006
    }

    package enum OptionCode {
        package static let endOfOptions: UInt16 = 0
        /// `opt_comment`, on any block.
        package static let comment: UInt16 = 1
        /// `shb_userappl`: the application that wrote the section.
        package static let userApplication: UInt16 = 4
        /// `if_name`.
        package static let interfaceName: UInt16 = 2
        /// `if_tsresol`: the resolution of the interface's timestamps.
        package static let timestampResolution: UInt16 = 9
    }

    /// LINKTYPE_RAW: each packet begins with its IPv4 or IPv6 header.
    package static let linkTypeRawIP: UInt16 = 101
    package static let byteOrderMagic: UInt32 = 0x1A2B_3C4D

    /// Starts a file with its section header: the application's name, and comments (each
    /// its own option) that Wireshark shows as the capture's comments.
    package init(application: String, comments: [String] = []) {
        var options: [UInt8] = []
        for comment in comments { Self.append(option: OptionCode.comment, Array(comment.utf8), to: &options) }
        Self.append(option: OptionCode.userApplication, Array(application.utf8), to: &options)
        var body: [UInt8] = []
        Self.append32(Self.byteOrderMagic, to: &body)
        Self.append16(1, to: &body)  // major version
        Self.append16(0, to: &body)  // minor version
        // Section length unknown (-1): readers walk the blocks.
        body += [UInt8](repeating: 0xff, count: 8)
        appendBlock(type: BlockType.sectionHeader, body: body, options: options)
    }

    /// Adds an interface whose timestamps count nanoseconds; returns its number, which
    /// packets name.
    package mutating func addInterface(linkType: UInt16, name: String, snapLength: UInt32 = 0) -> UInt32 {
        var body: [UInt8] = []
        Self.append16(linkType, to: &body)
        Self.append16(0, to: &body)  // reserved
        Self.append32(snapLength, to: &body)  // 0: no limit
        var options: [UInt8] = []
        Self.append(option: OptionCode.interfaceName, Array(name.utf8), to: &options)
        // 9: 10^-9 seconds.
        Self.append(option: OptionCode.timestampResolution, [9], to: &options)
        appendBlock(type: BlockType.interfaceDescription, body: body, options: options)
        defer { interfaces += 1 }
        return interfaces
    }

    /// Adds one packet captured whole on `interface` at `time` (nanoseconds since 1970).
    package mutating func addPacket(interface: UInt32, time: UInt64, data: [UInt8], comment: String? = nil) {
        var body: [UInt8] = []
        body.reserveCapacity(20 + data.count + 3)
        Self.append32(interface, to: &body)
        Self.append32(UInt32(truncatingIfNeeded: time >> 32), to: &body)
        Self.append32(UInt32(truncatingIfNeeded: time), to: &body)
        Self.append32(UInt32(clamping: data.count), to: &body)  // captured length
        Self.append32(UInt32(clamping: data.count), to: &body)  // original length
        body += data
        Self.pad(&body)
        var options: [UInt8] = []
        if let comment { Self.append(option: OptionCode.comment, Array(comment.utf8), to: &options) }
        appendBlock(type: BlockType.enhancedPacket, body: body, options: options)
    }

    /// Type, total length, body, options (closed by `opt_endofopt` when there are any),
    /// total length again.
    private mutating func appendBlock(type: UInt32, body: [UInt8], options: [UInt8]) {
        var optionBytes = options
        if !optionBytes.isEmpty {
            Self.append16(OptionCode.endOfOptions, to: &optionBytes)
            Self.append16(0, to: &optionBytes)
        }
        let total = UInt32(clamping: 12 + body.count + optionBytes.count)
        Self.append32(type, to: &bytes)
        Self.append32(total, to: &bytes)
        bytes += body
        bytes += optionBytes
        Self.append32(total, to: &bytes)
    }

    /// One option: code, length, value padded to 32 bits. A value longer than an option can
    /// say (65,535 bytes) is cut there.
    private static func append(option code: UInt16, _ value: [UInt8], to options: inout [UInt8]) {
        let kept = value.prefix(Int(UInt16.max))
        append16(code, to: &options)
        append16(UInt16(kept.count), to: &options)
        options += kept
        pad(&options)
    }

    private static func pad(_ bytes: inout [UInt8]) {
        let remainder = bytes.count % 4
        if remainder != 0 { bytes += [UInt8](repeating: 0, count: 4 - remainder) }
    }

    private static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
