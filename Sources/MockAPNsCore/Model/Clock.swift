import Synchronization

/// The one source of "now" for the whole core. Real time by default; tests and the control
/// API can pin it or move it forward so that hour-long rules (provider-token expiry, refresh
/// limits) are testable in milliseconds.
public final class ServerClock: Sendable {
    private enum Mode: Sendable {
        case real(offsetMilliseconds: Int64)
        case fixed(millisecondsSince1970: Int64)
    }

    private let mode: Mutex<Mode>

    /// A clock that follows the system's real time.
    public init() {
        mode = Mutex(.real(offsetMilliseconds: 0))
    }

    /// A clock pinned at `millisecondsSince1970` that moves only when told.
    /// A time outside ``range`` is pinned at the nearer end of it.
    public init(fixedAt millisecondsSince1970: Int64) {
        mode = Mutex(.fixed(millisecondsSince1970: Self.clamped(millisecondsSince1970, plus: 0)))
    }

    /// Every reading the clock can show: 1970-01-01T00:00:00.000Z to
    /// 9999-12-31T23:59:59.999Z, the years a four-digit ISO 8601 date can write. Keeping the
    /// clock inside means no arithmetic on a reading can overflow and no date is absurd.
    public static let range: ClosedRange<Int64> = 0...253_402_300_799_999

    /// Milliseconds since 1970-01-01T00:00:00Z, always within ``range``.
    public var millisecondsSince1970: Int64 {
        mode.withLock { mode in
            switch mode {
            case .real(let offset): return Self.clamped(Self.systemMilliseconds(), plus: offset)
            case .fixed(let value): return value
            }
        }
    }

    /// Whole seconds since 1970, as JWT `iat` and the legacy protocol count them.
    public var secondsSince1970: Int64 { millisecondsSince1970 / 1000 }

    /// Pins the clock at a time; it stays there until set, advanced or resumed. A time
    /// outside ``range`` is pinned at the nearer end of it.
    public func set(millisecondsSince1970: Int64) {
        let value = Self.clamped(millisecondsSince1970, plus: 0)
        mode.withLock { $0 = .fixed(millisecondsSince1970: value) }
    }

    /// Moves the clock forward (or back, with a negative amount) without changing its mode.
    /// The reading stops at the ends of ``range``.
    public func advance(milliseconds: Int64) {
        mode.withLock { mode in
            switch mode {
            case .real(let offset):
                let target = Self.clamped(Self.clamped(Self.systemMilliseconds(), plus: offset), plus: milliseconds)
                mode = .real(offsetMilliseconds: target - Self.systemMilliseconds())
            case .fixed(let value):
                mode = .fixed(millisecondsSince1970: Self.clamped(value, plus: milliseconds))
            }
        }
    }

    /// Follows real time again, keeping the current reading (no jump).
    public func resume() {
        mode.withLock { mode in
            if case .fixed(let value) = mode {
                // Both within `range`, so the difference cannot overflow.
                mode = .real(offsetMilliseconds: value - Self.systemMilliseconds())
            }
        }
    }

    /// Follows real time exactly again, dropping any offset that `advance` added.
    public func followRealTime() {
        mode.withLock { $0 = .real(offsetMilliseconds: 0) }
    }

    /// `value + offset`, saturating, then brought into ``range``.
    private static func clamped(_ value: Int64, plus offset: Int64) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(offset)
        let total = overflow ? (offset < 0 ? Int64.min : Int64.max) : sum
        return min(max(total, range.lowerBound), range.upperBound)
    }

    /// Whether the clock is pinned (not following real time).
    public var isFixed: Bool {
        mode.withLock { if case .fixed = $0 { return true } else { return false } }
    }

    private static func systemMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        // Within `range` for the next eight thousand years.
        return min(max(Int64(spec.tv_sec), 0), range.upperBound / 1000) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
