import MockAPNsCore
/// The sizes the legacy binary gateway accepts. Apple's limits changed over the years, so the
/// mock lets each listener choose the era it imitates.
package struct LegacyLimits: Sendable, Equatable {
    /// What token lengths are valid.
    package enum TokenLength: Sendable, Equatable {
        /// Exactly this many bytes (32 for every token Apple issued in the binary era).
        case exactly(Int)
        /// Any length from 1 to this many bytes (Apple's 2018 text: "up to 100 bytes").
        case atMost(Int)

        /// Whether a token of `length` bytes (at least 1) has a valid size.
        func allows(_ length: Int) -> Bool {
            switch self {
            case .exactly(let expected): return length == expected
            case .atMost(let maximum): return length >= 1 && length <= maximum
            }
        }
    }

    /// The longest token Apple ever documented for the binary protocol.
    package static let protocolMaximumTokenLength = 100

    /// Token lengths above this are taken as a framing mistake (typically a length written
    /// little-endian: 32 becomes 8,192) and end the stream as soon as the length is read,
    /// instead of waiting for kilobytes that will never come. Twice the 100-byte maximum, so a
    /// hex-encoded token of any legal size is still read whole and diagnosed.
    package static let tokenLengthReadLimit = 2 * protocolMaximumTokenLength

    /// The longest command-2 frame the decoder is willing to read: the five items once each,
    /// with the longest token it reads (`tokenLengthReadLimit`) and the longest payload an
    /// item's 16-bit length can express. No frame a client builds from distinct items can be
    /// longer, so a bigger declared length is rejected as soon as the 5-byte header is read.
    ///
    /// Frames between the configured limits and this bound are read (at most 64 KiB) so that
    /// an oversized payload is reported as status 7 with the notification's own identifier,
    /// which is what a provider needs to recover.
    package static let maximumFrameLength = 5 * 3 + tokenLengthReadLimit + Int(UInt16.max) + 4 + 4 + 1

    /// Valid token sizes. Default `.exactly(32)`; the length is clamped to 1...100.
    package let tokenLength: TokenLength
    /// The largest payload accepted, in bytes. Default 2048 (iOS 8 and later); clamped to
    /// 1...65535, which is all a 16-bit length field can say.
    package let maximumPayloadLength: Int

    package init(tokenLength: TokenLength = .exactly(32), maximumPayloadLength: Int = 2048) {
        let clamp = { (value: Int) in min(max(value, 1), LegacyLimits.protocolMaximumTokenLength) }
        switch tokenLength {
        case .exactly(let length): self.tokenLength = .exactly(clamp(length))
        case .atMost(let length): self.tokenLength = .atMost(clamp(length))
        }
        self.maximumPayloadLength = min(max(maximumPayloadLength, 1), Int(UInt16.max))
    }

    /// iOS 8 and later: 32-byte tokens, 2 KB payloads.
    package static let standard = LegacyLimits()

    /// Before iOS 8: payloads of at most 256 bytes.
    package static let iOS7 = LegacyLimits(maximumPayloadLength: 256)
}
