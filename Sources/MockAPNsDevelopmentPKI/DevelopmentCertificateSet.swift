import MockAPNsCore
/// One generated development set, in memory. ``files()`` lays it out as `certs-dev/`.
package struct DevelopmentCertificateSet: Sendable {
    package var options: DevelopmentCertificateOptions
    /// `MockAPNs Development CA`: the root that clients trust and the server checks client
    /// certificates against.
    package var certificateAuthority: DevelopmentCredential
    /// The TLS server certificate for loopback and Apple's host names.
    package var server: DevelopmentCredential
    package var sandboxClient: DevelopmentCredential
    package var productionClient: DevelopmentCredential
    package var universalClient: DevelopmentCredential
    package var expiredClient: DevelopmentCredential
    package var untrustedClient: DevelopmentCredential
    /// The ES256 provider-token keys, in `keys.json` order.
    package var providerKeys: [DevelopmentProviderKey]

    package init(
        options: DevelopmentCertificateOptions,
        certificateAuthority: DevelopmentCredential,
        server: DevelopmentCredential,
        sandboxClient: DevelopmentCredential,
        productionClient: DevelopmentCredential,
        universalClient: DevelopmentCredential,
        expiredClient: DevelopmentCredential,
        untrustedClient: DevelopmentCredential,
        providerKeys: [DevelopmentProviderKey]
    ) {
        self.options = options
        self.certificateAuthority = certificateAuthority
        self.server = server
        self.sandboxClient = sandboxClient
        self.productionClient = productionClient
        self.universalClient = universalClient
        self.expiredClient = expiredClient
        self.untrustedClient = untrustedClient
        self.providerKeys = providerKeys
    }

    /// The client certificate of the given kind.
    package func client(_ kind: DevelopmentClientCertificate) -> DevelopmentCredential {
        switch kind {
        case .sandbox: return sandboxClient
        case .production: return productionClient
        case .universal: return universalClient
        case .expired: return expiredClient
        case .untrusted: return untrustedClient
        }
    }

    /// Every file of `certs-dev/`, by name, with its text.
    package func files() throws(DevelopmentCertificateError) -> [DevelopmentFile] {
        do {
            var files = [
                DevelopmentFile(name: "ca.pem", contents: try certificateAuthority.certificatePEM()),
                DevelopmentFile(name: "ca-key.pem", contents: certificateAuthority.privateKeyPEM),
                DevelopmentFile(name: "server.pem", contents: try server.certificatePEM()),
                DevelopmentFile(name: "server-key.pem", contents: server.privateKeyPEM),
            ]
            for kind in DevelopmentClientCertificate.allCases {
                let credential = client(kind)
                files += [
                    DevelopmentFile(name: "\(kind.fileStem).pem", contents: try credential.certificatePEM()),
                    DevelopmentFile(name: "\(kind.fileStem)-key.pem", contents: credential.privateKeyPEM),
                    DevelopmentFile(name: "\(kind.fileStem).bundle.pem", contents: try credential.bundlePEM()),
                ]
            }
            for key in providerKeys {
                files.append(DevelopmentFile(name: key.fileName, contents: key.p8PEM))
            }
            files.append(DevelopmentFile(name: DevelopmentKeyManifest.fileName, contents: DevelopmentKeyManifest.json(for: providerKeys)))
            files.append(DevelopmentFile(name: "README.md", contents: DevelopmentReadme(set: self).text))
            return files
        } catch {
            throw .encodingFailed(String(describing: error))
        }
    }
}

/// One file of the development set: a plain name (no directories) and its text.
package struct DevelopmentFile: Sendable, Hashable {
    package var name: String
    package var contents: String

    package init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}
