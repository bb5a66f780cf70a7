import XCTest
@testable import MockAPNsCore

final class HTTP2ChurnDetectorTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testConnectionsLeftIdleAfterOneRequestAreChurn() {
        var detector = HTTP2ChurnDetector(threshold: 3, windowSeconds: 10)
        var reports: [HTTP2Churn] = []
        for id in UInt64(1)...4 {
            if let churn = detector.connectionOpened(id, at: id * second) { reports.append(churn) }
            detector.idleAfterFirstRequest(id)  // its one request answered, then left alone
        }
        XCTAssertEqual(reports, [HTTP2Churn(connections: 3, windowSeconds: 10, stillOpen: 3)])
        XCTAssertEqual(reports.first?.figures.map(\.name), ["connections", "windowSeconds", "requests", "stillOpen"])
    }

    func testAPoolOpenedAtOnceOrReusedIsNotChurn() {
        var detector = HTTP2ChurnDetector(threshold: 3, windowSeconds: 10)
        // A pool of five opened before any request is answered, then reused.
        for id in UInt64(1)...5 { XCTAssertNil(detector.connectionOpened(id, at: second)) }
        for id in UInt64(1)...5 { detector.idleAfterFirstRequest(id); detector.reused(id) }
        XCTAssertNil(detector.connectionOpened(6, at: 2 * second))
        for id in UInt64(1)...6 { XCTAssertNil(detector.connectionClosed(id, requests: 40, at: 3 * second)) }
    }

    func testClosedSingleRequestConnectionsAreChurnOncePerWindow() {
        var detector = HTTP2ChurnDetector(threshold: 3, windowSeconds: 10)
        var reports: [HTTP2Churn] = []
        for id in UInt64(1)...7 {
            _ = detector.connectionOpened(id, at: id * second)
            if let churn = detector.connectionClosed(id, requests: 1, at: id * second) { reports.append(churn) }
        }
        XCTAssertEqual(reports, [HTTP2Churn(connections: 3, windowSeconds: 10, stillOpen: 0)], "quiet for a window after a report")
        // Connections without any request (probes) and old ones do not count.
        var quiet = HTTP2ChurnDetector(threshold: 2, windowSeconds: 1)
        _ = quiet.connectionOpened(1, at: 0)
        XCTAssertNil(quiet.connectionClosed(1, requests: 1, at: 0))
        _ = quiet.connectionOpened(2, at: 5 * second)
        XCTAssertNil(quiet.connectionClosed(2, requests: 0, at: 5 * second))
        _ = quiet.connectionOpened(3, at: 5 * second)
        XCTAssertNil(quiet.connectionClosed(3, requests: 1, at: 5 * second), "the first one is out of the window")
    }
}
