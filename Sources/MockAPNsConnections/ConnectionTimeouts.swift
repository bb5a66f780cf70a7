import NIOCore

/// Conversions between the configured seconds and NIO's time amounts.
package enum ConnectionTimeouts {
    /// `seconds` (already range-checked) as a time amount.
    package static func amount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64((min(max(seconds, 0), 86_400) * 1_000_000_000).rounded()))
    }

    /// `1.5 s`, `300 ms`: for log lines and journal messages.
    package static func describe(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(milliseconds) ms"
    }
}
