import MockAPNsCore
import XCTest

/// The clock keeps every reading between 1970 and 9999, whatever it is told, so that no
/// arithmetic on a reading traps and no date shown is absurd.
final class ServerClockTests: XCTestCase {
    private let lastMillisecond: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z

    func testTheRangeIsTheFourDigitYears() {
        XCTAssertEqual(ServerClock.range, 0...lastMillisecond)
    }

    func testSettingOutsideTheRangePinsTheNearerEnd() {
        let rows: [(set: Int64, reads: Int64)] = [
            (Int64.min, 0), (-1, 0), (0, 0), (1_767_225_600_000, 1_767_225_600_000),
            (lastMillisecond, lastMillisecond), (lastMillisecond + 1, lastMillisecond), (Int64.max, lastMillisecond),
        ]
        for row in rows {
            let clock = ServerClock()
            clock.set(millisecondsSince1970: row.set)
            XCTAssertEqual(clock.millisecondsSince1970, row.reads, "set \(row.set)")
            XCTAssertEqual(ServerClock(fixedAt: row.set).millisecondsSince1970, row.reads, "fixedAt \(row.set)")
        }
    }

    /// The requests that used to trap: advancing by Int64.max, setting Int64.min, resuming.
    func testExtremeAdvancesStopAtTheEndsInEitherMode() {
        let pinned = ServerClock(fixedAt: 1_767_225_600_000)
        pinned.advance(milliseconds: .max)
        XCTAssertEqual(pinned.millisecondsSince1970, lastMillisecond)
        pinned.advance(milliseconds: .min)
        XCTAssertEqual(pinned.millisecondsSince1970, 0)

        let real = ServerClock()
        real.advance(milliseconds: .max)
        XCTAssertEqual(real.millisecondsSince1970, lastMillisecond)
        real.advance(milliseconds: .max)
        XCTAssertEqual(real.millisecondsSince1970, lastMillisecond)
        real.advance(milliseconds: .min)
        XCTAssertEqual(real.millisecondsSince1970, 0)
        XCTAssertFalse(real.isFixed)
    }

    func testResumeFromEitherEndKeepsTheReading() {
        for end in [ServerClock.range.lowerBound, ServerClock.range.upperBound] {
            let clock = ServerClock()
            clock.set(millisecondsSince1970: end)
            clock.resume()
            XCTAssertFalse(clock.isFixed)
            // Real time moves on, but only by the milliseconds this test takes.
            XCTAssertLessThanOrEqual(abs(clock.millisecondsSince1970 - end), 60_000)
            clock.advance(milliseconds: -1_000)
            XCTAssertTrue(ServerClock.range.contains(clock.millisecondsSince1970))
        }
    }
}
