import MockAPNs
import MockAPNsCore
import XCTest

/// The `clock` setting of configuration files and `serve --clock`: epoch seconds whose
/// milliseconds would overflow, or dates outside 1970 to 9999, are refused, not trapped on.
final class ClockSettingTests: XCTestCase {
    func testTextOutsideTheClockRangeIsRefused() {
        let rows: [(text: String, milliseconds: Int64??)] = [
            ("real", .some(nil)),
            ("0", .some(.some(0))),
            ("1767225600", .some(.some(1_767_225_600_000))),
            ("253402300799", .some(.some(253_402_300_799_000))),
            ("2026-01-01T00:00:00Z", .some(.some(1_767_225_600_000))),
            ("253402300800", nil),
            ("-1", nil),
            ("9223372036854775807", nil),
            ("-9223372036854775808", nil),
            ("0000-01-01T00:00:00Z", nil),
        ]
        for row in rows {
            XCTAssertEqual(ClockSetting.parse(text: row.text), row.milliseconds, row.text)
        }
    }

    func testAConfigurationFileClockThatWouldOverflowNamesTheKey() {
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"clock": 9223372036854775807}"#)) { error in
            let message = String(describing: error)
            XCTAssertTrue(message.contains("clock"), message)
            XCTAssertTrue(message.contains("from 0 to 253402300799"), message)
        }
    }
}
