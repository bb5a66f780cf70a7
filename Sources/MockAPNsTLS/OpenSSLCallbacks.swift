import MockAPNsWire
internal import COpenSSL

/// The C callbacks installed on every `SSL_CTX`. None captures Swift state: each finds the
/// connection's `ConnectionObservations` through the `SSL` object's ex_data slot.
enum OpenSSLCallbacks {
    /// The ex_data slot holding an unretained `ConnectionObservations` pointer.
    static let exDataIndex: Int32 = mockapns_SSL_get_ex_new_index()

    static func observations(of ssl: OpaquePointer?) -> ConnectionObservations? {
        guard let ssl, let raw = SSL_get_ex_data(ssl, exDataIndex) else { return nil }
        return Unmanaged<ConnectionObservations>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Records the ClientHello, then enforces the ALPN policy. This callback runs for every
    /// ClientHello, including one without an ALPN extension, which the ALPN select callback
    /// never sees.
    static let clientHello: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?) -> Int32 = { ssl, alert, _ in
        guard let ssl, let observations = observations(of: ssl) else {
            return SSL_CLIENT_HELLO_SUCCESS
        }
        let summary = ClientHelloReader.summary(of: ssl)
        observations.clientHello = summary

        guard let required = observations.policy.alpn.protocols else {
            return SSL_CLIENT_HELLO_SUCCESS
        }
        if summary.offeredALPN == nil, !observations.policy.alpn.refusesClientsWithoutALPN {
            return SSL_CLIENT_HELLO_SUCCESS
        }
        let offered = summary.offeredALPN ?? []
        if offered.contains(where: required.contains) {
            return SSL_CLIENT_HELLO_SUCCESS
        }
        observations.refusal = ALPNRefusal.describe(
            offered: summary.offeredALPN, required: required, explanation: observations.policy.alpnRefusalExplanation
        )
        alert?.pointee = Int32(TLSAlert.noApplicationProtocol.code)
        return SSL_CLIENT_HELLO_ERROR
    }

    /// Selects the server's most preferred protocol among those offered. The ClientHello
    /// callback has already refused clients that offer none of them.
    static let alpnSelect: @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { ssl, out, outLength, offered, offeredLength, _ in
        guard let observations = observations(of: ssl),
              let required = observations.policy.alpn.protocols,
              let offered, let out, let outLength
        else {
            return SSL_TLSEXT_ERR_NOACK
        }
        let wire = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
        for protocolName in required {
            let wanted = Array(protocolName.utf8)
            var index = 0
            while index < wire.count {
                let length = Int(wire[index])
                let start = index + 1
                guard start + length <= wire.count else { break }
                if length == wanted.count && wire[start..<(start + length)].elementsEqual(wanted) {
                    // OpenSSL copies the selection before `offered` goes away.
                    out.pointee = offered + start
                    outLength.pointee = UInt8(length)
                    return SSL_TLSEXT_ERR_OK
                }
                index = start + length
            }
        }
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }

    /// Applies the client-certificate policy to each verification error OpenSSL reports.
    /// Returning 1 lets the handshake continue despite the error; 0 fails it with the alert
    /// OpenSSL maps from the error (`certificate_expired`, `unknown_ca`, ...).
    static let verify: @convention(c) (Int32, OpaquePointer?) -> Int32 = { preverifyOK, storeContext in
        if preverifyOK == 1 { return 1 }
        guard let storeContext,
              let rawSSL = X509_STORE_CTX_get_ex_data(storeContext, SSL_get_ex_data_X509_STORE_CTX_idx()),
              let observations = observations(of: OpaquePointer(rawSSL))
        else {
            return 0
        }
        let code = X509_STORE_CTX_get_error(storeContext)
        let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "X509 error \(code)"
        let isExpiry = code == X509_V_ERR_CERT_HAS_EXPIRED
        if observations.verifyFailure == nil || isExpiry {
            observations.verifyFailure = (code, reason)
        }
        let tolerated = observations.policy.role == .server
            && observations.policy.clientCertificate == .request
            && !isExpiry
        return tolerated ? 1 : 0
    }

    /// Watches fatal alerts in both directions so failures can name the alert exactly.
    /// `value` holds the alert level in its high byte and the description in its low byte.
    static let info: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = { ssl, location, value in
        guard location & SSL_CB_ALERT != 0, value >> 8 == SSL3_AL_FATAL,
              let observations = observations(of: ssl)
        else { return }
        let alert = TLSAlert(code: UInt8(truncatingIfNeeded: value))
        if location & SSL_CB_WRITE != 0 {
            observations.alertSent = alert
        } else if location & SSL_CB_READ != 0 {
            observations.alertReceived = alert
        }
    }

    /// Hands each key log line to the context's writer.
    static let keyLog: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { ssl, line in
        guard let line, let writer = observations(of: ssl)?.policy.keyLog else { return }
        writer.append(line: line)
    }
}

/// The plain-words message for a client refused over ALPN.
enum ALPNRefusal {
    static func describe(offered: [String]?, required: [String], explanation: String?) -> String {
        let requirement = explanation ?? "this listener requires one of [\(required.joined(separator: ", "))]"
        guard let offered, !offered.isEmpty else {
            return "client offered no ALPN protocol; \(requirement)"
        }
        return "client offered ALPN [\(offered.joined(separator: ", "))]; \(requirement)"
    }
}

/// Reads a ClientHello through OpenSSL's accessors (valid only inside the ClientHello callback).
enum ClientHelloReader {
    static func summary(of ssl: OpaquePointer) -> ClientHelloSummary {
        let serverName = extensionBody(ssl, ClientHelloExtensions.serverNameType).flatMap(ClientHelloExtensions.serverName)
        let alpn = extensionBody(ssl, ClientHelloExtensions.alpnType).map { ClientHelloExtensions.alpnProtocols($0) ?? [] }
        let versions: [String]
        if let body = extensionBody(ssl, ClientHelloExtensions.supportedVersionsType),
           let offered = ClientHelloExtensions.supportedVersions(body), !offered.isEmpty {
            versions = offered.map(TLSVersion.name(wireValue:))
        } else {
            versions = [TLSVersion.name(wireValue: UInt16(truncatingIfNeeded: SSL_client_hello_get0_legacy_version(ssl)))]
        }
        return ClientHelloSummary(
            serverName: serverName,
            offeredALPN: alpn,
            offeredVersions: versions,
            offeredCipherSuites: cipherSuites(ssl)
        )
    }

    private static func extensionBody(_ ssl: OpaquePointer, _ type: UInt32) -> [UInt8]? {
        var data: UnsafePointer<UInt8>?
        var length = 0
        guard SSL_client_hello_get0_ext(ssl, type, &data, &length) == 1 else { return nil }
        guard let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    private static func cipherSuites(_ ssl: OpaquePointer) -> [String] {
        var data: UnsafePointer<UInt8>?
        let length = SSL_client_hello_get0_ciphers(ssl, &data)
        guard let data, length > 0 else { return [] }
        let codes = ClientHelloExtensions.cipherSuiteCodes(Array(UnsafeBufferPointer(start: data, count: length)))
        return codes.map { code in
            let bytes: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xff)]
            let cipher = bytes.withUnsafeBufferPointer { SSL_CIPHER_find(ssl, $0.baseAddress) }
            if let cipher, let name = SSL_CIPHER_get_name(cipher) {
                return String(cString: name)
            }
            return TLSVersion.hex(code)
        }
    }
}
