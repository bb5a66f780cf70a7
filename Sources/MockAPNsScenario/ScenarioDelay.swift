import MockAPNsCore
/// How long a rule waits before its answer goes out.
package enum ScenarioDelay: Sendable, Equatable {
    /// Always this many milliseconds.
    case fixed(milliseconds: Double)
    /// Uniform between the bounds.
    case uniform(minMilliseconds: Double, maxMilliseconds: Double)
    /// Log-normal: half the delays are below `medianMilliseconds`; `sigma` (the standard
    /// deviation of the logarithm) sets the tail. Capped at `maxMilliseconds` if given, so a
    /// rare draw cannot outlast a client's timeout by hours. Real network latency has this shape.
    case logNormal(medianMilliseconds: Double, sigma: Double, maxMilliseconds: Double?)

    /// One delay, in milliseconds, drawn from `random`.
    package func sample(using random: inout SeededRandom) -> Double {
        switch self {
        case .fixed(let milliseconds):
            return milliseconds
        case .uniform(let low, let high):
            return low + (high - low) * random.nextUnit()
        case .logNormal(let median, let sigma, let cap):
            let value = median * exponential(sigma * random.nextStandardNormal())
            return cap.map { Swift.min(value, $0) } ?? value
        }
    }
}
