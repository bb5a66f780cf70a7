internal import COpenSSL
import Synchronization

/// Appends TLS session secrets to a file in NSS key log format, one line per secret, as
/// Wireshark expects from SSLKEYLOGFILE. Shared by all connections of a context, which may
/// run on different event loops, hence the lock.
final class KeyLogWriter: Sendable {
    let path: String
    private let file: Mutex<FileBIO>

    /// Opens (creating if needed) `path` for appending.
    init(path: String) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new_file(path, "a") else {
            throw TLSError.cannotOpenKeyLogFile(path: path, reason: OpenSSLErrorQueue.drain())
        }
        self.path = path
        self.file = Mutex(FileBIO(pointer: bio))
    }

    deinit {
        file.withLock { BIO_free_all($0.pointer) }
    }

    /// Writes one line (OpenSSL hands it over without the newline) and flushes, so the file is
    /// usable while the server is still running.
    func append(line: UnsafePointer<CChar>) {
        let length = strlenBounded(line)
        file.withLock { file in
            _ = BIO_write(file.pointer, line, Int32(length))
            _ = BIO_write(file.pointer, "\n", 1)
            _ = mockapns_BIO_flush(file.pointer)
        }
    }

    private func strlenBounded(_ line: UnsafePointer<CChar>) -> Int {
        // Key log lines are short (under 200 bytes); the bound only guards against a
        // missing terminator.
        var length = 0
        while length < 4096 && line[length] != 0 {
            length += 1
        }
        return length
    }
}

/// A file BIO handle; only ever touched under the writer's lock.
struct FileBIO: @unchecked Sendable {
    let pointer: OpaquePointer
}
