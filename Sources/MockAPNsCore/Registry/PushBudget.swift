/// At most `maximum` pushes in each window of `periodMilliseconds`; more get
/// `TooManyRequests`. Windows are fixed, starting at the first push after the previous one
/// ended: simple to predict in a test, which matters more here than smoothness.
struct PushBudget: Sendable {
    var maximum: Int
    var periodMilliseconds: Int64
    private var windowStart: Int64?
    private var count = 0

    init(maximum: Int, periodMilliseconds: Int64) {
        self.maximum = maximum
        self.periodMilliseconds = periodMilliseconds
    }

    /// Counts one push at `now` and says whether it fits the budget.
    mutating func admit(at now: Int64) -> Bool {
        if let start = windowStart, now >= start, now - start < periodMilliseconds {
            count += 1
        } else {
            windowStart = now
            count = 1
        }
        return count <= maximum
    }
}
