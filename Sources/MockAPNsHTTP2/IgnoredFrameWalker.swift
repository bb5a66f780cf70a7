/// Walks the frame headers of bytes nghttp2 no longer reads. Once a GOAWAY is sent and no
/// stream is left, nghttp2 drops whatever the client sends without a callback; a client that
/// ignores the GOAWAY and opens new streams would go unseen. This reads only each frame's
/// 9-byte header and skips its payload, so it costs a few steps per frame, and only after a
/// GOAWAY. It starts where nghttp2 stopped reading, which is a frame boundary as long as the
/// client wrote whole frames (clients do; a frame cut there would only be misread here).
struct IgnoredFrameWalker {
    /// The header of the frame being read, as far as it has arrived.
    private var header: [UInt8] = []
    private var payloadRemaining = 0

    /// Calls `frame` with the type and stream of every frame whose header is in `bytes` (the
    /// bytes that follow those walked before).
    mutating func walk(_ bytes: UnsafeRawBufferPointer, frame: (_ type: UInt8, _ streamID: Int32) -> Void) {
        var index = 0
        while index < bytes.count {
            if payloadRemaining > 0 {
                let skip = min(payloadRemaining, bytes.count - index)
                payloadRemaining -= skip
                index += skip
                continue
            }
            header.append(bytes[index])
            index += 1
            guard header.count == 9 else { continue }
            payloadRemaining = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            let stream = UInt32(header[5] & 0x7F) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8])
            frame(header[3], Int32(bitPattern: stream))
            header.removeAll(keepingCapacity: true)
        }
    }
}
