import XCTest
@testable import MockAPNsCore
@testable import MockAPNsLegacy

/// Bytes from hex written the way Apple's tables read: spaces and line breaks are ignored.
func legacyBytes(_ hex: String) -> [UInt8] {
    let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init)
    var result: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        result.append(UInt8(String(digits[index...index + 1]), radix: 16) ?? 0)
        index += 2
    }
    return result
}


enum LegacyFixtures {
    /// `de ad be ef` eight times: a 32-byte token whose hex form is easy to read.
    static let token = [UInt8](repeating: 0, count: 8).flatMap { _ in [0xDE, 0xAD, 0xBE, 0xEF] as [UInt8] }
    static let tokenHex = String(repeating: "deadbeef", count: 8)
    /// `{"aps":{}}`, 10 bytes.
    static let payload = Array(#"{"aps":{}}"#.utf8)

    static func frame(
        identifier: UInt32? = 1,
        token: [UInt8] = LegacyFixtures.token,
        payload: [UInt8] = LegacyFixtures.payload,
        priority: Priority? = nil
    ) -> [UInt8] {
        LegacyNotification(command: .frame, identifier: identifier, expiry: 0, token: token, payload: payload, priority: priority).encoded()
    }

    static func enhanced(identifier: UInt32 = 1, token: [UInt8] = LegacyFixtures.token, payload: [UInt8] = LegacyFixtures.payload) -> [UInt8] {
        LegacyNotification(command: .enhanced, identifier: identifier, expiry: 0, token: token, payload: payload).encoded()
    }

    /// A command-2 frame built item by item, for frames a well-behaved encoder never writes.
    static func rawFrame(_ items: [(id: UInt8, data: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for item in items {
            body.append(item.id)
            body += [UInt8(item.data.count >> 8), UInt8(item.data.count & 0xFF)]
            body += item.data
        }
        let length = UInt32(body.count)
        return [2, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

extension Array where Element == LegacyDecoderEvent {
    var notifications: [LegacyNotification] {
        compactMap { if case .notification(let n) = $0 { return n } else { return nil } }
    }
    var errors: [LegacyFrameError] {
        compactMap { if case .invalidFrame(let e) = $0 { return e } else { return nil } }
    }
    var diagnoses: [LegacyDiagnosis] {
        compactMap { if case .diagnosis(let d) = $0 { return d } else { return nil } }
    }
}

/// Decodes `input` in one feed.
func legacyDecodeAll(_ input: [UInt8], limits: LegacyLimits = .standard) -> [LegacyDecoderEvent] {
    var decoder = LegacyFrameDecoder(limits: limits)
    return decoder.feed(input)
}

/// Compares two event streams and reports only the first difference (streams are long).
func assertSameEvents(_ actual: [LegacyDecoderEvent], _ expected: [LegacyDecoderEvent], _ message: String = "",
                      file: StaticString = #filePath, line: UInt = #line) {
    if let index = actual.indices.first(where: { $0 < expected.count && actual[$0] != expected[$0] }) {
        XCTFail("\(message): event \(index) differs: \(String(describing: actual[index]).prefix(300)) vs \(String(describing: expected[index]).prefix(300))", file: file, line: line)
    } else if actual.count != expected.count {
        XCTFail("\(message): \(actual.count) events instead of \(expected.count)", file: file, line: line)
    }
}
