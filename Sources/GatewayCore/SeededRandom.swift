/// A random number generator that can be built from a seed, so a test (or a replay of a
/// field log) gets the same jitter every run. The gateway seeds one from the system's
/// generator at start-up.
public protocol SeedableRandom: RandomNumberGenerator, Sendable {
    /// The generator whose whole sequence follows from `seed`.
    init(seed: UInt64)
}

/// SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and every seed gives a full
/// period, which is all jitter needs. Not for secrets.
public struct SplitMix64: SeedableRandom, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension RandomNumberGenerator {
    /// A fraction in 0..<1 from the top 53 bits, spelled out so a known generator gives a
    /// known jitter.
    mutating func nextFraction() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
