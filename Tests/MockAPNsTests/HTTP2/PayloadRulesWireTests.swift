import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Payloads checked by push type over real sockets: Apple answers 200, the journal says what
/// the device will do about it; `validation.payloadRules: "refuse"` refuses instead.
final class PayloadRulesWireTests: XCTestCase {
    private let token = Fixtures.token
    private let noEvent = #"{"aps":{"timestamp":1700000000,"content-state":{"score":"1-0"}}}"#

    private func jwt() throws -> String {
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        return try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem).token(issuedAt: Int64(Date().timeIntervalSince1970))
    }

    private func liveActivity(_ port: Int, body: String) throws -> CurlResponse {
        try CurlClient(port: port, certificate: nil).send(
            path: "/3/device/\(token)",
            headers: [("authorization", "bearer \(try jwt())"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                      ("apns-push-type", "liveactivity")],
            body: body)
    }

    func testDiagnosedByDefault() async throws {
        let (server, ports) = try await TestServer.start()
        XCTAssertEqual(try liveActivity(ports.http2, body: noEvent).status, 200, "as Apple answers")
        let events = await server.journal.waitForEvents(count: 2, timeout: .seconds(10)) { event in
            switch event.kind {
            case .diagnosis(.payloadLiveActivityWithoutEvent, _, _), .notification: true
            default: false
            }
        }
        XCTAssertEqual(events.map(\.kind.name), ["diagnosis", "notification"], "the diagnosis comes first, on the push's stream")
        XCTAssertEqual(events.first?.streamID, events.last?.streamID)
        try await server.shutdown()
    }

    func testRefusedWhenConfigured() async throws {
        let configuration = try MockAPNsConfiguration.parse(json: #"{"validation": {"payloadRules": "refuse"}}"#, over: TestServer.configuration())
        XCTAssertEqual(configuration.validation.payloadRules, .refuse)
        let server = MockAPNsServer(configuration: configuration)
        let ports = try await server.start()
        let refused = try liveActivity(ports.http2, body: noEvent)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.body, #"{"reason":"InvalidPushType"}"#)
        let good = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"1-0"}}}"#
        XCTAssertEqual(try liveActivity(ports.http2, body: good).status, 200)
        try await server.shutdown()
    }

    func testTheSettingsAreCheckedWithTheirPath() {
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"validation": {"payloadRules": "warn"}}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.validation.payloadRules"), "\(error)")
        }
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"validation": {"liveActivityWithCertificate": "Nope"}}"#)) { error in
            XCTAssertTrue("\(error)".contains("$.validation.liveActivityWithCertificate"), "\(error)")
        }
    }
}
