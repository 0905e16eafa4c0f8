/// SplitMix64: a deterministic random source for jitter and randomized tests.
public struct SeededGenerator: RandomNumberGenerator {
    /// The generator's state.
    public var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next value.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Always answers the same word: pins the jitter to its lowest (`.min`) or highest (`.max`) value.
public struct ConstantGenerator: RandomNumberGenerator {
    /// The word it answers.
    public var value: UInt64

    /// A generator answering `value`.
    public init(value: UInt64) {
        self.value = value
    }

    /// `value`.
    public mutating func next() -> UInt64 { value }
}
