import XCTest
@testable import MockAPNsCore

final class PayloadRulesTests: XCTestCase {
    private func request(size: Int, pushType: PushType? = .alert, topic: String? = "com.x") -> PushRequest {
        PushRequest(
            transport: .http2, deviceToken: "00", topic: topic, pushType: pushType,
            payload: size == 0 ? [] : PushDeciderTests.payload(size: size)
        )
    }

    func testSizeLimits() {
        let rules = PayloadRules()
        let rows: [(String, PushRequest, Reason?)] = [
            ("empty", request(size: 0), .payloadEmpty),
            ("4096 alert", request(size: 4096), nil),
            ("4097 alert", request(size: 4097), .payloadTooLarge),
            ("4097 background", request(size: 4097, pushType: .background), .payloadTooLarge),
            ("5120 voip", request(size: 5120, pushType: .voip, topic: "com.x.voip"), nil),
            ("5121 voip", request(size: 5121, pushType: .voip, topic: "com.x.voip"), .payloadTooLarge),
            ("5000 to a .voip topic without push type", request(size: 5000, pushType: nil, topic: "com.x.voip"), nil),
            ("5000 without push type or topic", request(size: 5000, pushType: nil, topic: nil), .payloadTooLarge),
            ("5000 pushtotalk", request(size: 5000, pushType: .pushtotalk, topic: "com.x.voip-ptt"), .payloadTooLarge),
        ]
        for (name, request, reason) in rows {
            XCTAssertEqual(rules.check(request), reason, name)
        }
    }

    func testVoIPLimitIsConfigurable() {
        let rules = PayloadRules(options: ValidationOptions(voipPayloadLimit: 4096))
        XCTAssertEqual(rules.check(request(size: 4097, pushType: .voip, topic: "com.x.voip")), .payloadTooLarge)
    }
}
