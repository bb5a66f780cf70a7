internal import COpenSSL

/// An OpenSSL `SSL_CTX` configured once (per listener, or per client) and shared by all of
/// its connections.
///
/// It is immutable after `init`, and OpenSSL allows creating connections from one `SSL_CTX`
/// on many threads at once, so it is safe to share across event loops.
package final class OpenSSLContext: @unchecked Sendable {
    /// Which end of the handshake connections from this context play.
    package enum Role: Sendable {
        case server
        case client
    }

    /// The `SSL_CTX`, owned by this object.
    let pointer: OpaquePointer
    let policy: ConnectionPolicy

    /// Whether connections accept or initiate the handshake.
    package var role: Role {
        policy.role
    }

    /// Builds a server context. Throws a `TLSError` naming the file and OpenSSL's reason when
    /// a certificate, key or trust root cannot be used.
    package convenience init(configuration: TLSConfiguration) throws(TLSError) {
        let (context, policy) = try ContextBuilder.build(
            role: .server, method: TLS_server_method(), alpn: configuration.alpn,
            clientCertificate: configuration.clientCertificate,
            versions: (configuration.minimumVersion, configuration.maximumVersion),
            keyLogFile: configuration.keyLogFile, securityLevel: configuration.securityLevel,
            cipherList: configuration.cipherList, alpnRefusalExplanation: configuration.alpnRefusalExplanation,
            versionRefusalAdvice: configuration.versionRefusalAdvice, untrustedServerAdvice: configuration.untrustedServerAdvice,
            sslRefusalAdvice: configuration.sslRefusalAdvice
        ) { context throws(TLSError) in
            try ContextBuilder.configureServer(context, configuration)
        }
        self.init(taking: context, policy: policy)
    }

    /// Builds a client context.
    package convenience init(clientConfiguration configuration: TLSClientConfiguration) throws(TLSError) {
        let (context, policy) = try ContextBuilder.build(
            role: .client, method: TLS_client_method(), alpn: .none, clientCertificate: .none,
            versions: (configuration.minimumVersion, configuration.maximumVersion),
            keyLogFile: configuration.keyLogFile, securityLevel: configuration.securityLevel,
            cipherList: configuration.cipherList
        ) { context throws(TLSError) in
            try ContextBuilder.configureClient(context, configuration)
        }
        self.init(taking: context, policy: policy)
    }

    private init(taking pointer: OpaquePointer, policy: ConnectionPolicy) {
        self.pointer = pointer
        self.policy = policy
    }

    deinit {
        // Connections keep this object alive, so no `SSL` made from it outlives the policy
        // and key log writer that its callbacks read.
        SSL_CTX_free(pointer)
    }
}

/// The steps that turn a configuration into a ready `SSL_CTX`.
private enum ContextBuilder {
    /// A fixed session-ID context: without one OpenSSL refuses to resume sessions on a
    /// context that verifies client certificates.
    static let sessionIDContext: [UInt8] = Array("MockAPNs".utf8)

    static func validate(versions: (TLSVersion, TLSVersion), alpn: ALPNPolicy) throws(TLSError) {
        if versions.0 > versions.1 {
            throw .invalidConfiguration("minimum version \(versions.0) is above maximum version \(versions.1)")
        }
        if let protocols = alpn.protocols {
            if protocols.isEmpty {
                throw .invalidConfiguration("ALPN policy requires an empty protocol list")
            }
            if let bad = protocols.first(where: { $0.utf8.isEmpty || $0.utf8.count > 255 }) {
                throw .invalidConfiguration("ALPN protocol name \"\(bad)\" must be 1 to 255 bytes")
            }
        }
    }

    /// The steps both roles share: validate, open the key log, make the context, apply the
    /// role's own settings and then the common ones, freeing the context if any step fails.
    static func build(
        role: OpenSSLContext.Role,
        method: OpaquePointer?,
        alpn: ALPNPolicy,
        clientCertificate: ClientCertificateMode,
        versions: (TLSVersion, TLSVersion),
        keyLogFile: String?,
        securityLevel: Int?,
        cipherList: String?,
        alpnRefusalExplanation: String? = nil,
        versionRefusalAdvice: String? = nil,
        untrustedServerAdvice: String? = nil,
        sslRefusalAdvice: String? = nil,
        configureRole: (OpaquePointer) throws(TLSError) -> Void
    ) throws(TLSError) -> (OpaquePointer, ConnectionPolicy) {
        try validate(versions: versions, alpn: alpn)
        let keyLog = try keyLogFile.map { path throws(TLSError) in try KeyLogWriter(path: path) }
        var policy = ConnectionPolicy(
            role: role, alpn: alpn, clientCertificate: clientCertificate,
            versions: versions.0...versions.1, keyLog: keyLog, alpnRefusalExplanation: alpnRefusalExplanation,
            versionRefusalAdvice: versionRefusalAdvice, untrustedServerAdvice: untrustedServerAdvice,
            sslRefusalAdvice: sslRefusalAdvice
        )
        let context = try make(method: method)
        do {
            try configureRole(context)
            switch role {
            case .server:
                // Read once here, not when a client refuses them: the certificate does not
                // change, and refusals are explained on the event loop.
                policy.serverCertificateNames = ServerCertificateNames(leafOf: context)
            case .client:
                break
            }
            try configureCommon(context, policy: policy, securityLevel: securityLevel, cipherList: cipherList)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        return (context, policy)
    }

    static func make(method: OpaquePointer?) throws(TLSError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(method) else {
            throw .cannotCreateContext(reason: OpenSSLErrorQueue.drain())
        }
        return context
    }

    static func configureCommon(
        _ context: OpaquePointer,
        policy: ConnectionPolicy,
        securityLevel: Int?,
        cipherList: String?
    ) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard mockapns_SSL_CTX_set_min_proto_version(context, policy.versions.lowerBound.openSSLValue) == 1,
              mockapns_SSL_CTX_set_max_proto_version(context, policy.versions.upperBound.openSSLValue) == 1
        else {
            throw .invalidConfiguration("OpenSSL refused the version range \(policy.versions): \(OpenSSLErrorQueue.drain())")
        }
        if let cipherList {
            OpenSSLErrorQueue.clear()
            guard SSL_CTX_set_cipher_list(context, cipherList) == 1 else {
                throw .invalidConfiguration("OpenSSL refused the cipher list \"\(cipherList)\": \(OpenSSLErrorQueue.drain())")
            }
        }
        // After the cipher list, so a "@SECLEVEL=n" inside it does not override this.
        if let securityLevel {
            SSL_CTX_set_security_level(context, Int32(clamping: securityLevel))
        }
        mockapns_SSL_CTX_set_no_auto_chain(context)
        SSL_CTX_set_info_callback(context, OpenSSLCallbacks.info)
        if policy.keyLog != nil {
            SSL_CTX_set_keylog_callback(context, OpenSSLCallbacks.keyLog)
        }
    }

    static func configureServer(_ context: OpaquePointer, _ configuration: TLSConfiguration) throws(TLSError) {
        mockapns_SSL_CTX_set_server_options(context)
        try installCertificateChain(context, configuration.certificateChain)
        try installPrivateKey(context, configuration.privateKey)
        let roots = try installTrustRoots(context, configuration.trustRootsPEM)
        for root in roots {
            // Tells clients which issuers we accept, so ones holding several identities can pick.
            _ = SSL_CTX_add_client_CA(context, root.pointer)
        }
        let mode: Int32
        switch configuration.clientCertificate {
        case .none: mode = SSL_VERIFY_NONE
        case .request: mode = SSL_VERIFY_PEER
        case .require: mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
        }
        SSL_CTX_set_verify(context, mode, OpenSSLCallbacks.verify)
        _ = sessionIDContext.withUnsafeBufferPointer {
            SSL_CTX_set_session_id_context(context, $0.baseAddress, UInt32($0.count))
        }
        SSL_CTX_set_client_hello_cb(context, OpenSSLCallbacks.clientHello, nil)
        if configuration.alpn.protocols != nil {
            SSL_CTX_set_alpn_select_cb(context, OpenSSLCallbacks.alpnSelect, nil)
        }
    }

    static func configureClient(_ context: OpaquePointer, _ configuration: TLSClientConfiguration) throws(TLSError) {
        if !configuration.certificateChain.isEmpty {
            try installCertificateChain(context, configuration.certificateChain)
            guard let key = configuration.privateKey else {
                throw .invalidConfiguration("a client certificate needs its private key")
            }
            try installPrivateKey(context, key)
        }
        let roots = try installTrustRoots(context, configuration.trustRootsPEM)
        if configuration.trustsSystemStore, SSL_CTX_set_default_verify_paths(context) != 1 {
            throw .invalidConfiguration("OpenSSL could not load the system's trust store: \(OpenSSLErrorQueue.drain())")
        }
        let verifies = !roots.isEmpty || configuration.trustsSystemStore
        SSL_CTX_set_verify(context, verifies ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, OpenSSLCallbacks.verify)
        if !configuration.alpnOffer.isEmpty {
            var wire: [UInt8] = []
            for name in configuration.alpnOffer {
                let bytes = Array(name.utf8)
                guard !bytes.isEmpty, bytes.count <= 255 else {
                    throw .invalidConfiguration("ALPN protocol name \"\(name)\" must be 1 to 255 bytes")
                }
                wire.append(UInt8(bytes.count))
                wire.append(contentsOf: bytes)
            }
            // Unusually, this returns 0 on success.
            let failed = wire.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count)) }
            if failed != 0 {
                throw .invalidConfiguration("OpenSSL refused the ALPN list: \(OpenSSLErrorQueue.drain())")
            }
        }
    }

    private static func installCertificateChain(_ context: OpaquePointer, _ sources: [PEMSource]) throws(TLSError) {
        guard !sources.isEmpty else {
            throw .invalidConfiguration("no certificate chain given")
        }
        var isLeaf = true
        for source in sources {
            let certificates: [X509Certificate]
            do {
                certificates = try PEMReader.certificates(from: source)
            } catch {
                throw .cannotReadCertificateChain(source: source.description, reason: error.reason)
            }
            for certificate in certificates {
                OpenSSLErrorQueue.clear()
                // Both calls take their own reference; ours is released with `certificate`.
                let installed = isLeaf
                    ? SSL_CTX_use_certificate(context, certificate.pointer)
                    : mockapns_SSL_CTX_add1_chain_cert(context, certificate.pointer)
                guard installed == 1 else {
                    throw .cannotReadCertificateChain(source: source.description, reason: OpenSSLErrorQueue.drain())
                }
                isLeaf = false
            }
        }
    }

    private static func installPrivateKey(_ context: OpaquePointer, _ source: PEMSource) throws(TLSError) {
        let key: PrivateKey
        do {
            key = try PEMReader.privateKey(from: source)
        } catch {
            throw .cannotReadPrivateKey(source: source.description, reason: error.reason)
        }
        OpenSSLErrorQueue.clear()
        guard SSL_CTX_use_PrivateKey(context, key.pointer) == 1 else {
            let first = ERR_peek_error()
            if ERR_GET_LIB(first) == ERR_LIB_X509 && ERR_GET_REASON(first) == X509_R_KEY_VALUES_MISMATCH {
                throw .privateKeyDoesNotMatchCertificate(reason: OpenSSLErrorQueue.drain())
            }
            throw .cannotReadPrivateKey(source: source.description, reason: OpenSSLErrorQueue.drain())
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .privateKeyDoesNotMatchCertificate(reason: OpenSSLErrorQueue.drain())
        }
    }

    private static func installTrustRoots(_ context: OpaquePointer, _ sources: [PEMSource]) throws(TLSError) -> [X509Certificate] {
        guard let store = SSL_CTX_get_cert_store(context) else {
            throw .cannotCreateContext(reason: "the context has no certificate store")
        }
        var roots: [X509Certificate] = []
        for source in sources {
            let certificates: [X509Certificate]
            do {
                certificates = try PEMReader.certificates(from: source)
            } catch {
                throw .cannotReadTrustRoots(source: source.description, reason: error.reason)
            }
            for certificate in certificates {
                OpenSSLErrorQueue.clear()
                // The store takes its own reference.
                guard X509_STORE_add_cert(store, certificate.pointer) == 1 else {
                    throw .cannotReadTrustRoots(source: source.description, reason: OpenSSLErrorQueue.drain())
                }
            }
            roots += certificates
        }
        return roots
    }
}
