import Synchronization

/// The one source of "now" for the whole core. Real time by default; tests and the control
/// API can pin it or move it forward so that hour-long rules (provider-token expiry, refresh
/// limits) are testable in milliseconds.
public final class ServerClock: Sendable {
    private enum Mode: Sendable {
        case real(offsetMilliseconds: Int64)
        case fixed(millisecondsSince1970: Int64)
    }

    /// The mode in one word, so that reading the clock (every journal event, every decision)
    /// takes no lock: the offset (real) or the reading (fixed) shifted left one bit, the low bit
    /// set when fixed. Both lie within twice `range` of zero, far inside `Int64`.
    private let word: Atomic<Int64>

    private static func encode(_ mode: Mode) -> Int64 {
        switch mode {
        case .real(let offset): offset << 1
        case .fixed(let value): value << 1 | 1
        }
    }

    private static func decode(_ word: Int64) -> Mode {
        word & 1 == 1 ? .fixed(millisecondsSince1970: word >> 1) : .real(offsetMilliseconds: word >> 1)
    }

    private var mode: Mode { Self.decode(word.load(ordering: .acquiring)) }

    /// Replaces the mode with `change(mode)`, retrying if another thread changed it meanwhile.
    private func update(_ change: (Mode) -> Mode) {
        var current = word.load(ordering: .acquiring)
        while true {
            let next = Self.encode(change(Self.decode(current)))
            let (exchanged, original) = word.compareExchange(expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// A clock that follows the system's real time.
    public init() {
        word = Atomic(Self.encode(.real(offsetMilliseconds: 0)))
    }

    /// A clock pinned at `millisecondsSince1970` that moves only when told.
    /// A time outside the clock's range (1970 to the end of 9999) is pinned at the nearer end of it.
    public init(fixedAt millisecondsSince1970: Int64) {
        word = Atomic(Self.encode(.fixed(millisecondsSince1970: Self.clamped(millisecondsSince1970, plus: 0))))
    }

    /// Every reading the clock can show: 1970-01-01T00:00:00.000Z to
    /// 9999-12-31T23:59:59.999Z, the years a four-digit ISO 8601 date can write. Keeping the
    /// clock inside means no arithmetic on a reading can overflow and no date is absurd.
    package static let range: ClosedRange<Int64> = 0...253_402_300_799_999

    /// Milliseconds since 1970-01-01T00:00:00Z, always within the clock's range (1970 to the end of 9999).
    public var millisecondsSince1970: Int64 {
        switch mode {
        case .real(let offset): Self.clamped(Self.systemMilliseconds(), plus: offset)
        case .fixed(let value): value
        }
    }

    /// How far a running clock reads ahead of real time (negative: behind), in milliseconds;
    /// `nil` when the clock is pinned.
    package var offsetFromRealTimeMilliseconds: Int64? {
        switch mode {
        case .real(let offset): offset
        case .fixed: nil
        }
    }

    /// Whole seconds since 1970, as JWT `iat` and the legacy protocol count them.
    public var secondsSince1970: Int64 { millisecondsSince1970 / 1000 }

    /// Pins the clock at a time; it stays there until set, advanced or resumed. A time
    /// outside the clock's range (1970 to the end of 9999) is pinned at the nearer end of it.
    public func set(millisecondsSince1970: Int64) {
        let value = Self.clamped(millisecondsSince1970, plus: 0)
        word.store(Self.encode(.fixed(millisecondsSince1970: value)), ordering: .releasing)
    }

    /// Moves the clock forward (or back, with a negative amount) without changing its mode.
    /// The reading stops at the ends of the clock's range (1970 to the end of 9999).
    public func advance(milliseconds: Int64) {
        update { mode in
            switch mode {
            case .real(let offset):
                let target = Self.clamped(Self.clamped(Self.systemMilliseconds(), plus: offset), plus: milliseconds)
                return .real(offsetMilliseconds: target - Self.systemMilliseconds())
            case .fixed(let value):
                return .fixed(millisecondsSince1970: Self.clamped(value, plus: milliseconds))
            }
        }
    }

    /// Follows real time again, keeping the current reading (no jump).
    public func resume() {
        update { mode in
            guard case .fixed(let value) = mode else { return mode }
            // Both within `range`, so the difference cannot overflow.
            return .real(offsetMilliseconds: value - Self.systemMilliseconds())
        }
    }

    /// Follows real time exactly again, dropping any offset that `advance` added.
    public func followRealTime() {
        word.store(Self.encode(.real(offsetMilliseconds: 0)), ordering: .releasing)
    }

    /// `value + offset`, saturating, then brought into `range`.
    private static func clamped(_ value: Int64, plus offset: Int64) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(offset)
        let total = overflow ? (offset < 0 ? Int64.min : Int64.max) : sum
        return min(max(total, range.lowerBound), range.upperBound)
    }

    /// Whether the clock is pinned (not following real time).
    public var isFixed: Bool {
        if case .fixed = mode { return true } else { return false }
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
