/// The text of a file that must be UTF-8 (scenario and configuration files).
package enum UTF8FileText {
    /// The file holds bytes that are not UTF-8: where the first ill-formed sequence starts.
    package struct InvalidUTF8: Error, Sendable, Equatable, CustomStringConvertible {
        /// Offset of the first byte of the ill-formed sequence, from the start of the file.
        package var byteOffset: Int
        /// That byte.
        package var byte: UInt8
        /// The 1-based line it is on.
        package var line: Int

        package init(byteOffset: Int, byte: UInt8, line: Int) {
            self.byteOffset = byteOffset
            self.byte = byte
            self.line = line
        }

        package var description: String {
            let hex = String(byte, radix: 16, uppercase: true)
            return "the file is not valid UTF-8: byte 0x\(hex.count == 1 ? "0" + hex : hex) at byte offset \(byteOffset) (line \(line)) does not start a well-formed UTF-8 sequence"
        }
    }

    /// Decodes `bytes` as UTF-8 (a leading byte-order mark is skipped), or says where the
    /// first byte that is not UTF-8 is.
    package static func decode(_ bytes: [UInt8]) throws(InvalidUTF8) -> String {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var line = 1
        scanning: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == UInt8(ascii: "\n") { line += 1 }
                offset += encoded.count
            case .emptyInput:
                break scanning
            case .error:
                throw InvalidUTF8(byteOffset: offset, byte: bytes[offset], line: line)
            }
        }
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: byteOrderMark) ? bytes.dropFirst(3) : bytes[...]
        return String(decoding: body, as: UTF8.self)
    }
}
