import Foundation
import MockAPNs
import MockAPNsCore

extension ServeCommand {
    /// Where the credentials of this run are, for the lines printed after start-up.
    struct Credentials {
        var directory: String

        /// What `serve` says when it has just generated a development set.
        static func generatedLine(_ directory: String) -> String {
            "mockapns generated development credentials in \(directory) (development only: the keys are not secret)"
        }

        /// Where the CA and the client credentials are, and a curl line that pushes one
        /// notification with the client certificate of the server's environment and shows the
        /// answer's status and headers (`-i`: a 200 has no body to show).
        func guide(configuration: MockAPNsConfiguration, http2Port: Int) -> String {
            let folder = directory as NSString
            let client = configuration.environment.primary == .production ? "client-production" : "client-sandbox"
            let path = { (name: String) in CredentialDirectory.shellQuoted(folder.appendingPathComponent(name)) }
            let host = ["0.0.0.0", "::", "[::]"].contains(configuration.host) ? "127.0.0.1" : configuration.host
            let token = String(repeating: "a1b2c3d4", count: 8)
            var lines: [String] = []
            lines.append("mockapns credentials: CA \(folder.appendingPathComponent("ca.pem")); client certificate \(folder.appendingPathComponent(client + ".pem")) with key \(folder.appendingPathComponent(client + "-key.pem")); provider keys (mockapns token --key-dir \(directory))")
            lines.append("try: curl -i --http2 --cacert \(path("ca.pem")) --cert \(path(client + ".pem")) --key \(path(client + "-key.pem")) -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' -d '{\"aps\":{\"alert\":\"hello\"}}' https://\(host):\(http2Port)/3/device/\(token)")
            return lines.joined(separator: "\n")
        }
    }

    /// Settles the credentials folder when neither the configuration file nor `--cert-dir`
    /// named one: `./certs-dev` in a checkout, else the per-user folder, filled with a fresh
    /// development set on the first run (said at once, so the line is seen even when the
    /// start fails afterwards). Then checks that every TLS file is readable, naming the file,
    /// the setting and the command that creates it. Returns `nil` when the folder was named
    /// explicitly and the files are not the development set's.
    func prepareCredentials(_ configuration: inout MockAPNsConfiguration) throws -> Credentials? {
        var credentials: Credentials?
        if configuration.certificateDirectory.isEmpty {
            // Absolute, so the printed paths work from any folder (`mockapns certs dir` says the same).
            guard let directory = DevelopmentCredentials.implicitFolder().map(DevelopmentCredentials.absolute) else {
                throw ServeError("no credentials folder: HOME and XDG_DATA_HOME are unset and ./certs-dev does not exist; pass --cert-dir DIR (mockapns certs generate --out DIR creates one)")
            }
            let prepared: DevelopmentCredentials
            do {
                prepared = try DevelopmentCredentials.prepare(in: directory)
            } catch {
                throw ServeError(error.description)
            }
            if prepared.generated {
                say(Credentials.generatedLine(directory))
            }
            configuration.certificateDirectory = directory
            credentials = Credentials(directory: directory)
        } else if configuration.tls == MockAPNsConfiguration.TLSFiles() {
            credentials = Credentials(directory: configuration.certificateDirectory)
        }
        try checkReadable(configuration)
        return credentials
    }

    /// A missing or unreadable TLS file names itself, the setting that chose it, and the
    /// command that makes one.
    private func checkReadable(_ configuration: MockAPNsConfiguration) throws {
        let directory = configuration.certificateDirectory
        let files: [(override: String?, name: String, what: String, key: String)] = [
            (configuration.tls.certificateChain, "server.pem", "the server certificate chain", "tls.certificateChain"),
            (configuration.tls.privateKey, "server-key.pem", "the server private key", "tls.privateKey"),
            (configuration.tls.clientTrustRoots, "ca.pem", "the client trust roots", "tls.clientTrustRoots"),
        ]
        for file in files {
            let path = file.override ?? (directory as NSString).appendingPathComponent(file.name)
            guard !FileManager.default.isReadableFile(atPath: path) else { continue }
            let problem = FileManager.default.fileExists(atPath: path) ? "is not readable" : "does not exist"
            let setting = file.override != nil
                ? "it is set by \(file.key) in the configuration file"
                : "it is looked for in the credentials folder, set by --cert-dir (certificateDirectory)"
            throw ServeError(
                "\(file.what) \(path) \(problem); \(setting). "
                    + "`mockapns certs generate --out \(directory.isEmpty ? "DIR" : directory)` creates a development set there")
        }
    }
}
