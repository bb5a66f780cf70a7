internal import COpenSSL

/// One X509 certificate owned by Swift; freed when the last reference goes.
final class X509Certificate {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}

/// One private key owned by Swift; freed when the last reference goes.
final class PrivateKey {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}

/// Reads certificates and keys from PEM sources with OpenSSL's PEM parser.
/// Failures return OpenSSL's reason text; the caller wraps it in the right `TLSError`.
enum PEMReader {
    struct Failure: Error {
        let reason: String
    }

    /// Every certificate in the source, in file order. Other PEM blocks (keys) are skipped.
    static func certificates(from source: PEMSource) throws(Failure) -> [X509Certificate] {
        try withBIO(source) { bio throws(Failure) -> [X509Certificate] in
            var certificates: [X509Certificate] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(X509Certificate(taking: certificate))
            }
            // Reading stops with "no start line" once the input is exhausted; anything else
            // means a block was damaged.
            let stop = ERR_peek_last_error()
            if certificates.isEmpty || (stop != 0 && !isEndOfInput(stop)) {
                throw Failure(reason: OpenSSLErrorQueue.drain(fallback: "no PEM certificate found"))
            }
            OpenSSLErrorQueue.clear()
            return certificates
        }
    }

    /// The first private key in the source. Encrypted keys are refused rather than prompting
    /// for a passphrase on the terminal.
    static func privateKey(from source: PEMSource) throws(Failure) -> PrivateKey {
        try withBIO(source) { bio throws(Failure) -> PrivateKey in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) else {
                throw Failure(reason: OpenSSLErrorQueue.drain(fallback: "no PEM private key found"))
            }
            return PrivateKey(taking: key)
        }
    }

    private static func isEndOfInput(_ code: UInt) -> Bool {
        ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE
    }

    /// Runs `body` with a read-only BIO over the source, freed afterwards.
    private static func withBIO<T>(_ source: PEMSource, _ body: (OpaquePointer) throws(Failure) -> T) throws(Failure) -> T {
        OpenSSLErrorQueue.clear()
        switch source {
        case .file(let path):
            guard let bio = BIO_new_file(path, "rb") else {
                throw Failure(reason: OpenSSLErrorQueue.drain(fallback: "cannot open file"))
            }
            defer { BIO_free(bio) }
            return try body(bio)
        case .bytes(let bytes):
            // `withUnsafeBytes` only rethrows untyped errors, so the outcome is carried out.
            let outcome = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<T, Failure> in
                // A memory BIO over borrowed bytes: no copy, valid only inside this closure.
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else {
                    return .failure(Failure(reason: OpenSSLErrorQueue.drain(fallback: "cannot allocate a memory BIO")))
                }
                defer { BIO_free(bio) }
                return Result { () throws(Failure) -> T in try body(bio) }
            }
            return try outcome.get()
        }
    }
}

/// A passphrase callback that supplies none, so encrypted keys fail instead of blocking on
/// a terminal prompt.
private let refusePassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in
    0
}
