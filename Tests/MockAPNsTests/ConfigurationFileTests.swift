import MockAPNs
import MockAPNsCore
import XCTest

final class ConfigurationFileTests: XCTestCase {
    func testEveryKeyIsRead() throws {
        let text = """
        {"host": "0.0.0.0", "environment": "production", "certificateDirectory": "/etc/mock",
         "generatedIdCase": "lower", "eventLoopThreads": 3,
         "tls": {"certificateChain": "a.pem", "privateKey": "b.pem", "clientTrustRoots": "c.pem"},
         "http2": {"port": 0, "maxConcurrentStreams": 500, "idleTimeoutSeconds": 60}}
        """
        let configuration = try MockAPNsConfiguration.parse(json: text)
        XCTAssertEqual(configuration.host, "0.0.0.0")
        XCTAssertEqual(configuration.environment, .production)
        XCTAssertEqual(configuration.certificateDirectory, "/etc/mock")
        XCTAssertEqual(configuration.generatedIDCase, .lower)
        XCTAssertEqual(configuration.eventLoopThreads, 3)
        XCTAssertEqual(configuration.tls, .init(certificateChain: "a.pem", privateKey: "b.pem", clientTrustRoots: "c.pem"))
        XCTAssertEqual(configuration.http2Port, 0)
        XCTAssertEqual(configuration.http2.maxConcurrentStreams, 500)
        XCTAssertEqual(configuration.http2.idleTimeoutSeconds, 60)
    }

    func testDefaultsAreApplesAndAbsentKeysKeepThem() throws {
        let configuration = try MockAPNsConfiguration.parse(json: "{}")
        XCTAssertEqual(configuration.host, "127.0.0.1")
        XCTAssertEqual(configuration.http2Port, 2197)
        XCTAssertEqual(configuration.environment, .sandbox)
        XCTAssertEqual(configuration.http2.maxConcurrentStreams, 1000)
        XCTAssertNil(configuration.http2.idleTimeoutSeconds)
    }

    func testMistakesNameTheirPath() {
        let cases: [(String, String)] = [
            (#"{"http2": {"port": 70000}}"#, "$.http2.port"),
            (#"{"environment": "staging"}"#, "$.environment"),
            (#"{"tls": {"cert": "x"}}"#, "$.tls.cert"),
            (#"{"hots": "x"}"#, "$.hots"),
            (#"{"http2": []}"#, "$.http2"),
        ]
        for (text, path) in cases {
            XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: text), text) { error in
                XCTAssertEqual((error as? JSONFileError)?.path, path, text)
            }
        }
    }
}
