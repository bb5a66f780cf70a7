import MockAPNsTestSupport
import Foundation
import Synchronization

/// Throwaway certificates made with the `openssl` command line in a temporary directory:
/// a CA, a server certificate for 127.0.0.1 and localhost, client certificates (trusted,
/// expired, and from another CA).
struct CertificateFixtures: Sendable {
    let directory: URL

    var caCertificate: String { path("ca.pem") }
    var serverCertificate: String { path("server.pem") }
    var serverKey: String { path("server.key") }
    var clientCertificate: String { path("client.pem") }
    var clientKey: String { path("client.key") }
    var expiredClientCertificate: String { path("expired.pem") }
    var expiredClientKey: String { path("expired.key") }
    var otherCACertificate: String { path("other-ca.pem") }
    var foreignClientCertificate: String { path("foreign.pem") }
    var foreignClientKey: String { path("foreign.key") }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Generated once per test run and shared; generation takes about a second.
    static let shared: Result<CertificateFixtures, FixtureError> = Result { () throws(FixtureError) in
        try generate()
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }

    private static func generate() throws(FixtureError) -> CertificateFixtures {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mockapns-tls-tests-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw FixtureError(description: "cannot create \(directory.path): \(error)")
        }
        let fixtures = CertificateFixtures(directory: directory)
        removeAtExit(directory.path)
        try fixtures.write("server.ext", """
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, DNS:localhost
            """)
        try fixtures.write("client.ext", """
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature
            extendedKeyUsage = clientAuth
            """)
        // `openssl ca` is the one OpenSSL 3.0 command that can backdate a certificate.
        try fixtures.write("index.txt", "")
        try fixtures.write("serial", "1000\n")
        try fixtures.write("ca.cnf", """
            [ ca ]
            default_ca = test_ca
            [ test_ca ]
            database = \(fixtures.path("index.txt"))
            new_certs_dir = \(directory.path)
            serial = \(fixtures.path("serial"))
            default_md = sha256
            policy = any_name
            unique_subject = no
            x509_extensions = client_extensions
            [ any_name ]
            commonName = supplied
            [ client_extensions ]
            basicConstraints = CA:FALSE
            extendedKeyUsage = clientAuth
            """)

        try fixtures.makeCA(name: "ca", subject: "/CN=MockAPNs Test CA")
        try fixtures.makeCA(name: "other-ca", subject: "/CN=Some Other CA")
        try fixtures.makeLeaf(name: "server", subject: "/CN=localhost", issuer: "ca", extensions: "server.ext")
        try fixtures.makeLeaf(name: "client", subject: "/CN=Apple Push Services: com.example.app/UID=com.example.app", issuer: "ca", extensions: "client.ext")
        try fixtures.makeLeaf(name: "foreign", subject: "/CN=Foreign Client", issuer: "other-ca", extensions: "client.ext")
        try fixtures.makeKeyAndRequest(name: "expired", subject: "/CN=Expired Client")
        try fixtures.openssl([
            "ca", "-batch", "-notext", "-config", fixtures.path("ca.cnf"),
            "-cert", fixtures.path("ca.pem"), "-keyfile", fixtures.path("ca.key"),
            "-startdate", "20200101000000Z", "-enddate", "20210101000000Z",
            "-in", fixtures.path("expired.csr"), "-out", fixtures.path("expired.pem"),
        ])
        return fixtures
    }

    /// The directory holds private keys; it goes when the test process ends.
    private static func removeAtExit(_ path: String) {
        directoryToRemove.withLock { $0 = path }
        atexit {
            if let path = CertificateFixtures.directoryToRemove.withLock({ $0 }) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    private static let directoryToRemove = Mutex<String?>(nil)

    private func makeCA(name: String, subject: String) throws(FixtureError) {
        try openssl([
            "req", "-x509", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-days", "30", "-subj", subject,
        ])
    }

    private func makeKeyAndRequest(name: String, subject: String) throws(FixtureError) {
        try openssl([
            "req", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject,
        ])
    }

    private func makeLeaf(name: String, subject: String, issuer: String, extensions: String) throws(FixtureError) {
        try makeKeyAndRequest(name: name, subject: subject)
        try openssl([
            "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"),
            "-CAcreateserial", "-out", path("\(name).pem"), "-days", "30", "-extfile", path(extensions),
        ])
    }

    private func write(_ name: String, _ text: String) throws(FixtureError) {
        do {
            try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        } catch {
            throw FixtureError(description: "cannot write \(name): \(error)")
        }
    }

    private func openssl(_ arguments: [String]) throws(FixtureError) {
        let result = ExternalCommand.run("/usr/bin/env", ["openssl"] + arguments, timeout: 30)
        guard result.status == 0 else {
            throw FixtureError(description: "openssl \(arguments.joined(separator: " ")) failed: \(result.output)")
        }
    }
}

/// Runs a command to completion (or kills it after `timeout` seconds), collecting stdout and
/// stderr together.
enum ExternalCommand {
    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    static func run(_ executable: String, _ arguments: [String], input: String = "", timeout: TimeInterval) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        do {
            try process.run()
        } catch {
            return Result(status: -1, output: "cannot start \(executable): \(error)")
        }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let deadline = DispatchTime.now() + timeout
        let killer = DispatchWorkItem { [process] in
            if process.isRunning { process.terminate() }
        }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: killer)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
