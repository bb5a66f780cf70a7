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
    public init(fixedAt millisecondsSince1970: Int64) {
        mode = Mutex(.fixed(millisecondsSince1970: millisecondsSince1970))
    }

    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64 {
        mode.withLock { mode in
            switch mode {
            case .real(let offset): return Self.systemMilliseconds() + offset
            case .fixed(let value): return value
            }
        }
    }

    /// Whole seconds since 1970, as JWT `iat` and the legacy protocol count them.
    public var secondsSince1970: Int64 { millisecondsSince1970 / 1000 }

    /// Pins the clock at a time; it stays there until set, advanced or resumed.
    public func set(millisecondsSince1970: Int64) {
        mode.withLock { $0 = .fixed(millisecondsSince1970: millisecondsSince1970) }
    }

    /// Moves the clock forward (or back, with a negative amount) without changing its mode.
    public func advance(milliseconds: Int64) {
        mode.withLock { mode in
            switch mode {
            case .real(let offset): mode = .real(offsetMilliseconds: offset + milliseconds)
            case .fixed(let value): mode = .fixed(millisecondsSince1970: value + milliseconds)
            }
        }
    }

    /// Follows real time again, keeping the current reading (no jump).
    public func resume() {
        mode.withLock { mode in
            if case .fixed(let value) = mode {
                mode = .real(offsetMilliseconds: value - Self.systemMilliseconds())
            }
        }
    }

    /// Follows real time exactly again, dropping any offset that `advance` added.
    public func followRealTime() {
        mode.withLock { $0 = .real(offsetMilliseconds: 0) }
    }

    /// Whether the clock is pinned (not following real time).
    public var isFixed: Bool {
        mode.withLock { if case .fixed = $0 { return true } else { return false } }
    }

    private static func systemMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
