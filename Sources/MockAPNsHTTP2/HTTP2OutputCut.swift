import MockAPNsWire
import NIOCore

/// What a cut connection let out of one stream's answer (``NGHTTP2ServerHandler/cutOutput(afterBytes:ofStream:report:)``):
/// the client read the first `budget` bytes of the answer, counted from the first byte of its
/// HEADERS frame (inside TLS), and then the connection closed.
package struct HTTP2OutputCut: Sendable, Equatable {
    /// The stream whose answer the cut counts from.
    package var streamID: Int32
    /// The bytes the cut allowed after the answer's first byte.
    package var budget: Int
    /// Bytes of the answer's frames that went out (whole frames and the cut one's head).
    package var answerBytesSent: Int
    /// The answer's bytes, had nothing been cut.
    package var answerBytes: Int
    /// Whether the answer's HEADERS frame reached the client whole (its status was read).
    package var headersSent: Bool
    /// Whether the whole answer, up to the frame that ends the stream, reached the client.
    package var answerSent: Bool

    package init(streamID: Int32, budget: Int, answerBytesSent: Int, answerBytes: Int, headersSent: Bool, answerSent: Bool) {
        self.streamID = streamID
        self.budget = budget
        self.answerBytesSent = answerBytesSent
        self.answerBytes = answerBytes
        self.headersSent = headersSent
        self.answerSent = answerSent
    }
}

/// Cuts one batch of serialized frames `budget` bytes after the first byte of `streamID`'s
/// first frame, and says which frames went out whole. HTTP/2 frames carry their own length
/// in a 9-byte header, so the batch is walked without nghttp2.
struct HTTP2OutputCutter {
    let streamID: Int32
    let budget: Int

    /// One frame's place in the batch.
    struct Frame {
        var type: HTTP2FrameType
        var flags: UInt8
        var streamID: Int32
        var start: Int
        var end: Int
    }

    /// The frames of `bytes`, in order; a trailing partial frame (never produced by nghttp2)
    /// is left out.
    static func frames(in bytes: ByteBuffer) -> [Frame] {
        var frames: [Frame] = []
        var offset = 0
        let total = bytes.readableBytes
        while total - offset >= 9,
              let header = bytes.getBytes(at: bytes.readerIndex + offset, length: 9) {
            let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            let end = offset + 9 + length
            guard end <= total else { break }
            let stream = Int32(bitPattern: UInt32(header[5] & 0x7F) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8]))
            frames.append(Frame(type: HTTP2FrameType(wireValue: header[3]), flags: header[4], streamID: stream, start: offset, end: end))
            offset = end
        }
        return frames
    }

    /// Where the batch is cut (bytes kept), and what the cut left of the stream's answer.
    func cut(_ frames: [Frame], total: Int) -> (keep: Int, report: HTTP2OutputCut) {
        // The answer: the stream's HEADERS, CONTINUATION and DATA frames (a WINDOW_UPDATE the
        // server sent on the stream before it answered is not part of it).
        let answer = frames.filter { frame in
            guard frame.streamID == streamID else { return false }
            switch frame.type {
            case .headers, .continuation, .data: return true
            case .priority, .rstStream, .settings, .pushPromise, .ping, .goaway, .windowUpdate, .unknown: return false
            }
        }
        guard let first = answer.first else {
            // The answer was not in the batch (the stream was gone): nothing of it went out,
            // and the connection closes after what came before.
            return (total, HTTP2OutputCut(streamID: streamID, budget: budget, answerBytesSent: 0, answerBytes: 0,
                                          headersSent: false, answerSent: false))
        }
        let (sum, overflow) = first.start.addingReportingOverflow(max(budget, 0))
        let keep = overflow ? total : min(sum, total)
        let answerBytes = answer.reduce(0) { $0 + ($1.end - $1.start) }
        let sent = answer.reduce(0) { $0 + max(0, min($1.end, keep) - $1.start) }
        let headers = answer.first { $0.type == .headers }
        // END_STREAM (0x1) on HEADERS or DATA closes the answer.
        let last = answer.first { ($0.type == .headers || $0.type == .data) && $0.flags & 0x1 != 0 }
        return (keep, HTTP2OutputCut(
            streamID: streamID, budget: budget, answerBytesSent: sent, answerBytes: answerBytes,
            headersSent: headers.map { $0.end <= keep } ?? false, answerSent: last.map { $0.end <= keep } ?? false
        ))
    }
}
