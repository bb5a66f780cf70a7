@testable import MockAPNsTLS
import XCTest

/// The names a refusal quotes are read from the certificate itself, and whether the client's
/// SNI is among them follows the clients' own rules; a wrong answer here would blame the name
/// for a CA problem, or the CA for a name problem.
final class ServerCertificateNamesTests: TLSTestCase {
    func testTheContextReadsItsCertificatesDNSNamesAndAddresses() throws {
        let context = try OpenSSLContext(configuration: serverConfiguration())
        XCTAssertEqual(context.policy.serverCertificateNames, ServerCertificateNames(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]))
        let client = try OpenSSLContext(clientConfiguration: clientConfiguration())
        XCTAssertNil(client.policy.serverCertificateNames, "a client has no server certificate to explain")
    }

    func testSNIMatchesAsClientsMatchIt() {
        let names = ServerCertificateNames(dnsNames: ["localhost", "*.push.example.com"], ipAddresses: ["127.0.0.1"])
        XCTAssertTrue(names.covers(serverName: "localhost"))
        XCTAssertTrue(names.covers(serverName: "LocalHost."), "case and a trailing dot do not matter")
        XCTAssertTrue(names.covers(serverName: "api.push.example.com"), "a wildcard stands for one label")
        XCTAssertFalse(names.covers(serverName: "a.b.push.example.com"), "and only one")
        XCTAssertFalse(names.covers(serverName: "push.example.com"), "and not none")
        XCTAssertFalse(names.covers(serverName: "127.0.0.1"), "an address is not a DNS name")
    }

    func testTheDescriptionNamesBothKindsOrSaysThereAreNone() {
        XCTAssertEqual(ServerCertificateNames(dnsNames: ["a", "b"], ipAddresses: ["::1"]).described, "DNS names [a, b] and IP addresses [::1]")
        XCTAssertEqual(ServerCertificateNames(dnsNames: ["a"], ipAddresses: []).described, "DNS names [a]")
        XCTAssertEqual(
            ServerCertificateNames(dnsNames: [], ipAddresses: []).described,
            "no DNS name or IP address (no subjectAltName, which clients require)"
        )
    }
}
