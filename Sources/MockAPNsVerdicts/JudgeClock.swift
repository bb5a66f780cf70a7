import MockAPNsCore
import MockAPNsJournal
/// The time the verdicts measure with, in microseconds: the server's monotonic clock (real
/// time passing, whatever the server clock does), plus every jump forward of the server clock
/// of more than a second beyond it. So a pinned clock does not make every retry look instant,
/// and a test that moves a pinned clock 25 minutes on moves the verdicts' time with it.
/// Events of another process (a journal file written across a restart) continue from the
/// server clock's difference.
struct JudgeClock: Sendable {
    /// A jump of the server clock ahead of the monotonic clock larger than this is taken as
    /// the clock being moved (smaller differences are its millisecond rounding).
    static let jumpMicroseconds: Int64 = 1_000_000
    /// Monotonic readings taken on different threads may arrive this far out of order.
    static let reorderMicroseconds: Int64 = 50_000
    /// The latest time it gives: far beyond any run, and low enough that a time plus a
    /// window or a delay never overflows (a journal file may hold any numbers).
    static let limit = Int64.max / 4

    private var last: (wall: Int64, monotonic: UInt64, time: Int64)?

    /// The time of `event`, never earlier than the time of the event before it.
    mutating func time(of event: JournalEvent) -> Int64 {
        let wall = event.wallTimeMilliseconds
        let monotonic = event.monotonicNanoseconds
        guard let previous = last else {
            let start = wall.multipliedReportingOverflow(by: 1000)
            let time = start.overflow ? 0 : min(max(0, start.partialValue), Self.limit)
            last = (wall, monotonic, time)
            return time
        }
        let wallStep = Self.microseconds(milliseconds: wall &- previous.wall)
        var step: Int64
        var keptMonotonic = monotonic
        if monotonic >= previous.monotonic {
            let monotonicStep = Int64(clamping: (monotonic - previous.monotonic) / 1000)
            step = monotonicStep
            if wallStep &- monotonicStep > Self.jumpMicroseconds { step = wallStep }
        } else if Int64(clamping: (previous.monotonic - monotonic) / 1000) <= Self.reorderMicroseconds {
            // Keep the later reading, so one early reading does not count twice.
            step = 0
            keptMonotonic = previous.monotonic
        } else {
            step = max(0, wallStep)
        }
        let time = previous.time.addingReportingOverflow(max(0, step))
        let now = time.overflow ? Self.limit : min(time.partialValue, Self.limit)
        last = (wall, keptMonotonic, now)
        return now
    }

    private static func microseconds(milliseconds: Int64) -> Int64 {
        let (value, overflow) = milliseconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (milliseconds < 0 ? Int64.min / 2 : Int64.max / 2) : value
    }
}
