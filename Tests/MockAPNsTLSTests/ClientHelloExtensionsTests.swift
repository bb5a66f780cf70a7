@testable import MockAPNsTLS
import XCTest

/// The ClientHello decoders read untrusted bytes: they must decode what clients send and
/// reject, without trapping, whatever is cut short.
final class ClientHelloExtensionsTests: XCTestCase {
    func testALPNList() {
        let body: [UInt8] = [0x00, 0x0c, 0x02] + Array("h2".utf8) + [0x08] + Array("http/1.1".utf8)
        XCTAssertEqual(ClientHelloExtensions.alpnProtocols(body), ["h2", "http/1.1"])
    }

    func testServerName() {
        let name = Array("api.push.apple.com".utf8)
        let body: [UInt8] = [0x00, UInt8(name.count + 3), 0x00, 0x00, UInt8(name.count)] + name
        XCTAssertEqual(ClientHelloExtensions.serverName(body), "api.push.apple.com")
    }

    func testSupportedVersionsDropGREASE() {
        let body: [UInt8] = [0x06, 0x7a, 0x7a, 0x03, 0x04, 0x03, 0x03]
        XCTAssertEqual(ClientHelloExtensions.supportedVersions(body), [0x0304, 0x0303])
    }

    func testCipherSuitesDropGREASE() {
        XCTAssertEqual(ClientHelloExtensions.cipherSuiteCodes([0x0a, 0x0a, 0x13, 0x01, 0xc0]), [0x1301])
    }

    func testTruncatedInputIsRejectedNotTrapped() {
        let alpn: [UInt8] = [0x00, 0x0c, 0x02] + Array("h2".utf8) + [0x08] + Array("http/1.1".utf8)
        for length in 0..<alpn.count {
            XCTAssertNil(ClientHelloExtensions.alpnProtocols(Array(alpn.prefix(length))), "length \(length)")
        }
        XCTAssertNil(ClientHelloExtensions.serverName([0x00, 0x10, 0x00, 0x00]))
        XCTAssertNil(ClientHelloExtensions.supportedVersions([0x04, 0x03, 0x04]))
        XCTAssertNil(ClientHelloExtensions.alpnProtocols([0x00, 0x03, 0x05, 0x61]))
    }

    func testVersionNames() {
        XCTAssertEqual(TLSVersion.name(wireValue: 0x0300), "SSLv3")
        XCTAssertEqual(TLSVersion.name(wireValue: 0x0304), "TLSv1.3")
        XCTAssertEqual(TLSVersion.name(wireValue: 0x7f1c), "0x7f1c")
        XCTAssertEqual(TLSVersion.tlsv12.description, "TLSv1.2")
    }

    func testIPAddressLiteralsAreNotSentAsSNI() {
        XCTAssertTrue(IPAddressLiteral.isLiteral("127.0.0.1"))
        XCTAssertTrue(IPAddressLiteral.isLiteral("::1"))
        XCTAssertFalse(IPAddressLiteral.isLiteral("localhost"))
        XCTAssertFalse(IPAddressLiteral.isLiteral("1.2.3.400"))
        XCTAssertFalse(IPAddressLiteral.isLiteral("api.push.apple.com"))
    }
}
