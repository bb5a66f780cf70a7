import MockAPNsWire
import XCTest
@testable import MockAPNsCore

/// Every endpoint's answer is a verdict rendered in its shape: a device push's as APNs writes
/// it, a channel management answer with its request id and what its acceptance carries, web
/// push's without ids; and what the record says matches what was rendered.
final class ResponseShapeTests: XCTestCase {
    private let requestID = "0b6a7c1e-57a9-4a4a-9d4f-3f0f0f6f0e11"
    private var management: ResponseShape {
        ResponseShape(extraHeaders: [HTTPHeader(name: "apns-request-id", value: requestID)], includesAPNsID: false)
    }

    func testADevicePushIsTheRenderersAnswer() {
        let verdicts: [Verdict] = [
            .accepted(apnsID: "A", uniqueID: "u"), .rejected(reason: .unregistered, apnsID: "A", timestamp: 12),
        ]
        for verdict in verdicts {
            XCTAssertEqual(ResponseShape.push.render(verdict), HTTP2ResponseRenderer.render(verdict))
            XCTAssertEqual(ResponseShape.push.sent(verdict), SentAnswer.http2(verdict))
        }
    }

    func testAnAcceptanceCarriesItsStatusBodyAndFieldsAfterTheShapes() {
        let json = Array(#"{"channels":["c1"]}"#.utf8)
        let read = management.render(.accepted(apnsID: .text(requestID), uniqueID: nil), acceptance: Acceptance(status: 200, json: json))
        XCTAssertEqual(read, ProviderAnswer(status: 200, headers: [
            HTTPHeader(name: "content-type", value: "application/json"), HTTPHeader(name: "apns-request-id", value: requestID),
        ], body: json))

        let created = Acceptance(status: 201, fields: [HTTPHeader(name: "apns-channel-id", value: "c1")])
        let answer = management.render(.accepted(apnsID: .text(requestID), uniqueID: nil), acceptance: created)
        XCTAssertEqual(answer, ProviderAnswer(status: 201, headers: [
            HTTPHeader(name: "apns-request-id", value: requestID), HTTPHeader(name: "apns-channel-id", value: "c1"),
        ], body: nil))
        // The record says what the bytes say.
        XCTAssertEqual(management.sent(.accepted(apnsID: .text(requestID), uniqueID: nil), acceptance: created),
                       SentAnswer.http2(answer, scripted: false))
    }

    func testARefusalIgnoresTheAcceptance() {
        let created = Acceptance(status: 201, fields: [HTTPHeader(name: "apns-channel-id", value: "c1")])
        let verdict = Verdict.rejected(reason: .channelNotRegistered, apnsID: .text(requestID), timestamp: nil)
        let answer = management.render(verdict, acceptance: created)
        XCTAssertEqual(answer, ProviderAnswer(
            status: Reason.channelNotRegistered.httpStatus,
            headers: [HTTPHeader(name: "content-type", value: "application/json"), HTTPHeader(name: "apns-request-id", value: requestID)],
            body: Array(#"{"reason":"ChannelNotRegistered"}"#.utf8)))
        XCTAssertEqual(management.sent(verdict, acceptance: created), SentAnswer.http2(answer, scripted: false))
    }

    func testWebPushCarriesNoIDAndAcceptsWith201() {
        let webPush = ResponseShape(includesAPNsID: false, acceptedStatus: 201)
        let accepted = webPush.render(.accepted(apnsID: "A", uniqueID: "u"))
        XCTAssertEqual(accepted, ProviderAnswer(status: 201, headers: [], body: nil))
        XCTAssertEqual(webPush.sent(.accepted(apnsID: "A", uniqueID: "u")), SentAnswer.http2(accepted, scripted: false))
        let gone = Verdict.rejected(reason: .unregistered, apnsID: "", timestamp: 1_454_402_113_000)
        XCTAssertEqual(webPush.render(gone).fields, [HTTPHeader(name: "content-type", value: "application/json")])
        XCTAssertEqual(webPush.sent(gone), SentAnswer.http2(webPush.render(gone), scripted: false))
    }
}
