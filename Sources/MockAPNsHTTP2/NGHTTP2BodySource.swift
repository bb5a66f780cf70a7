internal import CNghttp2
import NIOCore

/// What nghttp2's data-source read callbacks share, on both sides: the next part of a body
/// held as a buffer, copied into the frame buffer nghttp2 gives.
enum NGHTTP2BodySource {
    /// Copies up to `length` bytes of `body` into `buffer` and returns how many; sets EOF in
    /// `flags` and empties `body` once it is all out (or when there is nothing to copy).
    static func copy(
        _ body: inout ByteBuffer?, into buffer: UnsafeMutablePointer<UInt8>?, length: Int, flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        guard var remaining = body, let buffer else {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            body = nil
            return 0
        }
        let count = min(length, remaining.readableBytes)
        remaining.withUnsafeReadableBytes { bytes in
            if let base = bytes.baseAddress {
                buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
            }
        }
        remaining.moveReaderIndex(forwardBy: count)
        if remaining.readableBytes == 0 {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            body = nil
        } else {
            body = remaining
        }
        return count
    }
}
