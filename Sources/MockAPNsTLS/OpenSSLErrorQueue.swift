internal import COpenSSL

/// OpenSSL reports failures through a thread-local queue of error codes. Each call site clears
/// it before an operation and drains it after a failure, so messages never mix connections.
enum OpenSSLErrorQueue {
    static func clear() {
        ERR_clear_error()
    }

    /// Empties the queue and returns its reasons joined, oldest first, or `fallback` when the
    /// queue held nothing.
    static func drain(fallback: String = "no further detail from OpenSSL") -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            let reason = describe(code)
            if !reasons.contains(reason) {
                reasons.append(reason)
            }
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }

    private static func describe(_ code: UInt) -> String {
        if let reason = ERR_reason_error_string(code) {
            return String(cString: reason)
        }
        // System errors and unregistered reasons have no reason string; the long form still
        // names the library and the numeric reason.
        var text = [CChar](repeating: 0, count: 256)
        text.withUnsafeMutableBufferPointer { buffer in
            ERR_error_string_n(code, buffer.baseAddress, buffer.count)
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
