/// xoshiro256** (Blackman & Vigna): a fast, non-cryptographic generator for request and unique
/// ids, seeded from the system generator. One per connection, so no locking and no system call
/// per request; channel ids (which clients keep) still come from the system generator.
struct FastRandom: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// Seeds from `SystemRandomNumberGenerator` (never all zero).
    init() {
        var system = SystemRandomNumberGenerator()
        repeat {
            state = (system.next(), system.next(), system.next(), system.next())
        } while state == (0, 0, 0, 0)
    }

    mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
