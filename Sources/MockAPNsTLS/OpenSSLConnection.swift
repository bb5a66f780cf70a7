internal import COpenSSL
import NIOCore

/// One TLS connection: an OpenSSL `SSL` object over a `ByteBufferBIO`. OpenSSL reads
/// ciphertext from the socket's own buffers, and writes the ciphertext it produces into a
/// buffer the handler takes for the socket. This type turns OpenSSL's return codes into Swift
/// outcomes and knows nothing about channels.
final class OpenSSLConnection {
    enum HandshakeOutcome {
        case complete
        case needsMoreData
        case failed(openSSL: String)
    }

    enum ReadOutcome {
        /// Everything decryptable has been read; more ciphertext is needed.
        case needsMoreData
        /// The peer sent close_notify.
        case closeNotify
        case failed(openSSL: String)
    }

    /// Keeps the context, and so the policy and key log writer the callbacks use, alive.
    let context: OpenSSLContext
    let observations: ConnectionObservations
    /// The SNI name sent (client role).
    let serverName: String?
    private let ssl: OpaquePointer
    /// Both BIOs of `ssl`; kept alive here until after `SSL_free`, since the BIO holds it
    /// without a retain.
    let bio: ByteBufferBIO

    init(context: OpenSSLContext, serverName: String?, allocator: ByteBufferAllocator) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            throw .cannotCreateConnection(reason: OpenSSLErrorQueue.drain())
        }
        guard let bio = ByteBufferBIO(allocator: allocator) else {
            SSL_free(ssl)
            throw .cannotCreateConnection(reason: OpenSSLErrorQueue.drain())
        }
        // The SSL frees the BIO twice in SSL_free, as its read BIO and as its write BIO;
        // given the same BIO for both, SSL_set_bio takes the second reference itself, so the
        // one from BIO_new is all it needs (one more here would keep every BIO for ever).
        SSL_set_bio(ssl, bio.pointer, bio.pointer)

        self.context = context
        self.ssl = ssl
        self.bio = bio
        self.observations = ConnectionObservations(policy: context.policy)
        self.serverName = serverName
        SSL_set_ex_data(ssl, OpenSSLCallbacks.exDataIndex, Unmanaged.passUnretained(observations).toOpaque())

        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            if let serverName {
                try configurePeerName(serverName)
            }
        }
    }

    deinit {
        // Frees the BIO too. `observations` and `bio` are released only after this, so no
        // callback can reach a freed object.
        SSL_free(ssl)
    }

    /// Client role: send SNI for host names (never for IP literals, as RFC 6066 demands) and
    /// check the server certificate against the name when verification is on.
    private func configurePeerName(_ name: String) throws(TLSError) {
        if IPAddressLiteral.isLiteral(name) {
            guard let parameters = SSL_get0_param(ssl), X509_VERIFY_PARAM_set1_ip_asc(parameters, name) == 1 else {
                throw .cannotCreateConnection(reason: "cannot verify against IP address \(name): \(OpenSSLErrorQueue.drain())")
            }
            return
        }
        guard mockapns_SSL_set_tlsext_host_name(ssl, name) == 1, SSL_set1_host(ssl, name) == 1 else {
            throw .cannotCreateConnection(reason: "cannot use server name \(name): \(OpenSSLErrorQueue.drain())")
        }
    }

    // MARK: Ciphertext in and out

    /// Queues ciphertext received from the peer (kept, not copied).
    func receive(_ ciphertext: ByteBuffer) {
        bio.receive(ciphertext)
    }

    /// Bytes of ciphertext waiting to be sent.
    var pendingCiphertext: Int {
        bio.pendingOutbound
    }

    /// Takes all ciphertext OpenSSL has produced, as one buffer, or `nil` when there is none.
    func takeCiphertext() -> ByteBuffer? {
        bio.takeOutbound()
    }

    // MARK: TLS operations

    func handshake() -> HandshakeOutcome {
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            return .complete
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .needsMoreData
        default:
            return .failed(openSSL: OpenSSLErrorQueue.drain())
        }
    }

    /// Decrypts everything available into `buffer`, growing it as needed.
    func read(into buffer: inout ByteBuffer) -> ReadOutcome {
        // Successful reads leave the error queue empty, so clearing once covers the loop.
        OpenSSLErrorQueue.clear()
        while true {
            var result: Int32 = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.minimumReadSpace) { space in
                var read = 0
                result = SSL_read_ex(ssl, space.baseAddress, space.count, &read)
                return result == 1 ? read : 0
            }
            if result == 1 { continue }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return .needsMoreData
            case SSL_ERROR_ZERO_RETURN:
                return .closeNotify
            default:
                return .failed(openSSL: OpenSSLErrorQueue.drain())
            }
        }
    }

    /// Callers size `buffer` from `availableInput`, and every record carries more overhead
    /// than this, so a read never forces the buffer to grow.
    private static let minimumReadSpace = 1

    /// An upper bound on the plaintext that the input received so far can yield: ciphertext
    /// not yet processed plus plaintext OpenSSL already decrypted.
    var availableInput: Int {
        bio.pendingInbound + Int(SSL_pending(ssl))
    }

    /// Encrypts all of `plaintext` into the outbound buffer. The BIO never pushes back, so a
    /// write either completes or fails.
    func write(_ plaintext: ByteBuffer) -> String? {
        guard plaintext.readableBytes > 0 else { return nil }
        OpenSSLErrorQueue.clear()
        let result = plaintext.withUnsafeReadableBytes { bytes -> Int32 in
            var written = 0
            return SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written)
        }
        return result == 1 ? nil : OpenSSLErrorQueue.drain()
    }

    /// Queues close_notify. Errors are ignored: a connection that cannot say goodbye is closed
    /// anyway.
    func shutdown() {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    // MARK: Session facts

    func sessionInfo() -> TLSSessionInfo {
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
        var alpnPointer: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnPointer, &alpnLength)
        let alpn = alpnPointer.flatMap { pointer -> String? in
            alpnLength == 0 ? nil : String(decoding: UnsafeBufferPointer(start: pointer, count: Int(alpnLength)), as: UTF8.self)
        }
        let chain = peerCertificateChainDER()
        let serverName: String?
        switch context.role {
        case .server:
            serverName = observations.clientHello?.serverName
                ?? SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        case .client:
            // IP literals are checked against the certificate but never sent as SNI.
            serverName = self.serverName.flatMap { IPAddressLiteral.isLiteral($0) ? nil : $0 }
        }
        return TLSSessionInfo(
            version: String(cString: SSL_get_version(ssl)),
            cipher: cipher,
            negotiatedALPN: alpn,
            serverName: serverName,
            clientHello: observations.clientHello,
            peerCertificateChainDER: chain,
            peerCertificate: peerCertificateOutcome(presented: !chain.isEmpty),
            sessionResumed: SSL_session_reused(ssl) == 1
        )
    }

    private func peerCertificateOutcome(presented: Bool) -> PeerCertificateOutcome {
        guard presented else { return .notPresented }
        if let failure = observations.verifyFailure {
            return .untrusted(reason: failure.reason)
        }
        let result = SSL_get_verify_result(ssl)
        guard result == X509_V_OK else {
            let reason = X509_verify_cert_error_string(result).map { String(cString: $0) } ?? "X509 error \(result)"
            return .untrusted(reason: reason)
        }
        return .trusted
    }

    /// The chain as the peer sent it, leaf first. On a server OpenSSL keeps the leaf apart
    /// from the rest of the chain; on a client the chain already starts with it.
    private func peerCertificateChainDER() -> [[UInt8]] {
        guard let leaf = SSL_get0_peer_certificate(ssl) else { return [] }
        var chain: [[UInt8]] = []
        if let der = Self.der(leaf) { chain.append(der) }
        if let stack = SSL_get_peer_cert_chain(ssl) {
            for index in 0..<mockapns_sk_X509_num(stack) {
                guard let certificate = mockapns_sk_X509_value(stack, index) else { continue }
                if index == 0 && X509_cmp(certificate, leaf) == 0 { continue }
                if let der = Self.der(certificate) { chain.append(der) }
            }
        }
        return chain
    }

    private static func der(_ certificate: OpaquePointer) -> [UInt8]? {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor = buffer.baseAddress
            count = Int(max(0, i2d_X509(certificate, &cursor)))
        }
    }
}

/// Recognises IPv4 and IPv6 literals, which must not be sent as SNI.
enum IPAddressLiteral {
    static func isLiteral(_ name: String) -> Bool {
        if name.contains(":") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }
}
