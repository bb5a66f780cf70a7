#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (RLIMIT_NOFILE), which caps how many connections the server
/// can hold at once.
package enum OpenFileLimit {
    /// The soft limit before and after `raiseToHardLimit()`.
    package struct Change: Equatable {
        package var before: UInt64
        package var after: UInt64
    }

    /// Raises the soft limit to the hard limit, as most servers do at start (a soft limit of
    /// 256 or 1024 is common and far below what a load test opens). Where the hard limit is
    /// unlimited, the soft limit goes as high as the system allows (`OPEN_MAX` on macOS).
    /// Returns `nil` when the limit cannot be read.
    package static func raiseToHardLimit() -> Change? {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur)
        var target = limit.rlim_max
        #if canImport(Darwin)
        if target == RLIM_INFINITY { target = rlim_t(OPEN_MAX) }
        #endif
        guard target > limit.rlim_cur else { return Change(before: before, after: before) }
        limit.rlim_cur = target
        guard setrlimit(Self.resource, &limit) == 0 else { return Change(before: before, after: before) }
        return Change(before: before, after: UInt64(target))
    }

    /// The soft limit now.
    package static var current: UInt64? {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    #if canImport(Glibc) || canImport(Musl)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
