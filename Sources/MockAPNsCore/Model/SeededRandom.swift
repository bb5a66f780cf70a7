#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one seeded random number generator in MockAPNs (xoshiro256**, seeded through
/// SplitMix64): a scenario with a seed makes the same choices every run, and randomized tests
/// fail the same way every run.
///
/// The scenario engine does not share one generator between requests. Each (request, rule) pair gets
/// its own stream, derived from the seed, the request's global number and the rule's
/// position, so whether rule 3 fires for request 40 does not depend on how many numbers
/// other rules drew before it.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator for `stream` under `seed`. Different streams of one seed are independent.
    package init(seed: UInt64, stream: UInt64 = 0) {
        var mixer = SplitMix64(state: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    package mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, by: 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, by: 45)
        return result
    }

    /// A uniform number in [0, 1) with 53 bits of precision.
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A standard normal number (Box-Muller), for log-normal delays.
    package mutating func nextStandardNormal() -> Double {
        // 1 - u keeps the logarithm away from zero.
        let u1 = 1 - nextUnit()
        let u2 = nextUnit()
        return (-2 * logarithm(u1)).squareRoot() * cosine(2 * Double.pi * u2)
    }

    private func rotateLeft(_ value: UInt64, by amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 - amount))
    }
}

/// SplitMix64: spreads a seed's bits so that nearby seeds give unrelated states.
struct SplitMix64 {
    /// The golden-ratio increment between states.
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= Self.gamma
        return Self.mix(state)
    }

    /// The output function: a bijection, so distinct states give distinct outputs.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Natural logarithm and cosine from the C library, named so the generator reads plainly.
@inline(__always) func logarithm(_ x: Double) -> Double { log(x) }
@inline(__always) func cosine(_ x: Double) -> Double { cos(x) }
@inline(__always) package func exponential(_ x: Double) -> Double { exp(x) }
