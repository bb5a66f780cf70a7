import MockAPNsWire
@testable import MockAPNs
import MockAPNsCore
import XCTest

/// What of a frame the journal may keep: tokens a client sent are hidden wherever they are,
/// and nothing else changes.
final class JournalHTTP2Tests: XCTestCase {
    private let token = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkEifQ.eyJpc3MiOiJUIiwiaWF0IjoxfQ.c2lnbmF0dXJl"
    private let withoutSignature = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkEifQ.eyJpc3MiOiJUIiwiaWF0IjoxfQ.<signature removed>"

    private func headers(_ direction: HTTP2FrameRecord.Direction, _ fields: [(String, String)]) -> HTTP2FrameRecord {
        HTTP2FrameRecord(
            direction: direction, type: .headers, flags: 0x4, streamID: 1, length: 80,
            details: .headers(fields.map { HTTPHeader(name: $0.0, value: $0.1) })
        )
    }

    private func values(_ record: HTTP2FrameRecord) -> [String] {
        guard case .headers(let headers) = record.details else { return [] }
        return headers.map(\.value)
    }

    func testAnInboundTokenLosesItsSignatureInAuthorizationAndInAnyOtherHeader() {
        let frame = headers(.inbound, [
            (":path", "/3/device/abcdef"), ("authorization", "bearer \(token)"), ("x-copy", "value: [bearer \(token)]"),
            ("apns-topic", "com.example.app"),
        ])
        let cache = RecordedHeaders()
        // Without the connection's cache; with it, the first time and again for the same list.
        for cache in [nil, cache, cache] {
            let recorded = JournalHTTP2.recordable(frame, providerTokens: .withoutSignature, lastHeaders: cache)
            XCTAssertEqual(values(recorded), [
                "/3/device/abcdef", "bearer \(withoutSignature)", "value: [bearer \(withoutSignature)]", "com.example.app",
            ])
        }
    }

    /// A request repeating the last one field for field is recorded as the same list, its
    /// token hidden once for the connection rather than a copy made per request.
    func testAListRepeatingTheLastIsRecordedAsTheLastOneWasWithoutACopy() {
        let cache = RecordedHeaders()
        let list = [HTTPHeader(name: ":path", value: "/3/device/abcdef"), HTTPHeader(name: "authorization", value: "bearer \(token)")]
        let first = cache.recordable(list, .withoutSignature)
        let again = cache.recordable(list, .withoutSignature)
        XCTAssertEqual(again.map(\.value), ["/3/device/abcdef", "bearer \(withoutSignature)"])
        let storage = { (headers: [HTTPHeader]) in headers.withUnsafeBufferPointer { $0.baseAddress } }
        XCTAssertEqual(storage(again), storage(first), "the recorded list of the request before, shared")
    }

    func testRedactionReplacesAuthorizationWhateverItHolds() {
        let frame = headers(.inbound, [("authorization", "basic xyz"), ("apns-id", "5E8D1C1A-1B2C-4D5E-8F90-A1B2C3D4E5F6")])
        let recorded = JournalHTTP2.recordable(frame, providerTokens: .redacted)
        XCTAssertEqual(values(recorded), ["<redacted>", "5E8D1C1A-1B2C-4D5E-8F90-A1B2C3D4E5F6"])
    }

    func testTheConnectionsCacheFollowsANewToken() {
        let cache = RecordedHeaders()
        let second = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkIifQ.eyJpc3MiOiJUIiwiaWF0IjoyfQ.b3RoZXI"
        _ = JournalHTTP2.recordable(headers(.inbound, [("authorization", "bearer \(token)")]), providerTokens: .withoutSignature,
                                    lastHeaders: cache)
        let recorded = JournalHTTP2.recordable(headers(.inbound, [("authorization", "bearer \(second)")]),
                                               providerTokens: .withoutSignature, lastHeaders: cache)
        XCTAssertEqual(values(recorded), ["bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkIifQ.eyJpc3MiOiJUIiwiaWF0IjoyfQ.<signature removed>"])
    }

    /// The cache matches fields by their place in the list: a token that moves to another
    /// field, or a list that grows, is still looked at.
    func testTheConnectionsCacheLooksAtEveryFieldThatChanged() {
        let cache = RecordedHeaders()
        _ = JournalHTTP2.recordable(headers(.inbound, [(":path", "/3/device/ab"), ("apns-topic", "com.example.app")]),
                                    providerTokens: .withoutSignature, lastHeaders: cache)
        let recorded = JournalHTTP2.recordable(
            headers(.inbound, [(":path", "/3/device/ab"), ("apns-topic", "bearer \(token)"), ("authorization", "bearer \(token)")]),
            providerTokens: .withoutSignature, lastHeaders: cache)
        XCTAssertEqual(values(recorded), ["/3/device/ab", "bearer \(withoutSignature)", "bearer \(withoutSignature)"])
        let redacted = JournalHTTP2.recordable(
            headers(.inbound, [(":path", "/3/device/ab"), ("apns-topic", "bearer \(token)"), ("authorization", "bearer \(token)")]),
            providerTokens: .redacted, lastHeaders: RecordedHeaders())
        XCTAssertEqual(values(redacted), ["/3/device/ab", "bearer <redacted>", "<redacted>"])
    }

    func testHeadersWithoutATokenAndTheServersOwnAnswersAreKeptAsTheyAre() {
        let inbound = headers(.inbound, [(":method", "POST"), (":path", "/3/device/beefbeef"), ("apns-push-type", "alert")])
        XCTAssertEqual(JournalHTTP2.recordable(inbound, providerTokens: .withoutSignature), inbound)
        let outbound = headers(.outbound, [(":status", "200"), ("apns-id", "5E8D1C1A-1B2C-4D5E-8F90-A1B2C3D4E5F6")])
        XCTAssertEqual(JournalHTTP2.recordable(outbound, providerTokens: .redacted), outbound)
        let whole = headers(.inbound, [("authorization", "bearer \(token)")])
        XCTAssertEqual(JournalHTTP2.recordable(whole, providerTokens: .whole), whole)
    }

    func testGoawayDebugDataThatQuotesATokenLosesItsSignature() {
        let frame = HTTP2FrameRecord(
            direction: .outbound, type: .goaway, flags: 0, streamID: 0, length: 20,
            details: .goaway(errorCode: 1, lastStreamID: 3, debugData: Array("bad header: bearer \(token)".utf8))
        )
        let recorded = JournalHTTP2.recordable(frame, providerTokens: .withoutSignature)
        XCTAssertEqual(recorded.details, .goaway(errorCode: 1, lastStreamID: 3, debugData: Array("bad header: bearer \(withoutSignature)".utf8)))
    }
}
