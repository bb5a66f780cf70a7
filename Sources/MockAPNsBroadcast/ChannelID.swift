import MockAPNsCore
/// Channel ids: standard base64 text (Apple: "The channel ID is a base64-encoded string").
package enum ChannelID {
    /// Whether `text` is standard base64 with correct padding and at most `maximumLength`
    /// characters: what `BadChannelId` refuses ("isn't properly encoded, or it's greater than
    /// the allowed length").
    package static func isWellFormed(_ text: String, maximumLength: Int) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.count % 4 == 0 else { return false }
        var padding = 0
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "=") {
                // Padding only at the end, at most two characters.
                padding += 1
                guard index >= bytes.count - 2 else { return false }
                continue
            }
            guard padding == 0, isAlphabet(byte) else { return false }
        }
        return true
    }

    /// A new random id of `byteCount` bytes in standard base64 with padding
    /// (16 bytes give 24 characters, such as `q83vEjRWeJCrze8SNFZ4kA==`).
    package static func generate(byteCount: Int = 16) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount + 8)
        while bytes.count < byteCount {
            let (high, low) = UniqueBits.shared.next128()
            for word in [high, low] {
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
                }
            }
        }
        return encode(bytes.prefix(byteCount))
    }

    /// Standard base64 with padding.
    static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = input[index]
            let b1 = remaining > 1 ? input[index + 1] : 0
            let b2 = remaining > 2 ? input[index + 2] : 0
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            output.append(remaining > 1 ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
