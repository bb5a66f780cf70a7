/// The `clock` setting: `"real"`, epoch seconds, or an ISO 8601 UTC time
/// (`2026-01-01T00:00:00Z`), pinning the clock there at start.
package enum ClockSetting {
    /// Milliseconds since 1970 to pin the clock at, or `nil` for real time. `nil` when the
    /// text is none of these or is outside the clock's range (1970 to 9999).
    package static func parse(text: String) -> Int64?? {
        if text == "real" { return .some(nil) }
        if let seconds = Int64(text) { return milliseconds(fromSeconds: seconds).map { .some($0) } }
        if let milliseconds = parseISO8601(text), ServerClock.range.contains(milliseconds) { return .some(milliseconds) }
        return nil
    }

    /// Epoch seconds as milliseconds, if within the clock's range.
    private static func milliseconds(fromSeconds seconds: Int64) -> Int64? {
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow, ServerClock.range.contains(milliseconds) else { return nil }
        return milliseconds
    }

    package static func parse(_ node: JSONNode, path: String) throws(JSONFileError) -> Int64? {
        let expected = "\"real\", epoch seconds from 0 to 253402300799, or an ISO 8601 UTC time from 1970 to 9999 like \"2026-01-01T00:00:00Z\""
        switch node.value {
        case .number(let text):
            guard let seconds = Int64(text), let value = milliseconds(fromSeconds: seconds) else { break }
            return value
        case .string(let text):
            if let value = parse(text: text) { return value }
        case .null, .bool, .array, .object:
            break
        }
        throw JSONFileError(path: path, position: node.position, message: "expected \(expected)")
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z`, UTC only.
    package static func parseISO8601(_ text: String) -> Int64? {
        let scalars = Array(text.utf8)
        guard scalars.count >= 20, scalars.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = scalars[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard scalars[4] == UInt8(ascii: "-"), scalars[7] == UInt8(ascii: "-"), scalars[10] == UInt8(ascii: "T"),
              scalars[13] == UInt8(ascii: ":"), scalars[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds: Int64 = 0
        if scalars.count > 20 {
            guard scalars[19] == UInt8(ascii: "."), scalars.count - 21 >= 1, scalars.count - 21 <= 9,
                  let fraction = number(20..<(scalars.count - 1)) else { return nil }
            let digits = scalars.count - 21
            var scaled = fraction
            for _ in 0..<max(0, digits - 3) { scaled /= 10 }
            for _ in 0..<max(0, 3 - digits) { scaled *= 10 }
            milliseconds = scaled
        } else if scalars.count != 20 {
            return nil
        }
        // Days from the civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + milliseconds
    }
}
