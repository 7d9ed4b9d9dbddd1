import Foundation

/// A small deterministic random number generator (SplitMix64): fuzz tests and generated
/// histories repeat exactly from their seed, so a failure reproduces.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// `count` bytes, the very ones `(0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }`
    /// gives (each the low byte of one `next()`: `SeededGeneratorTests`), in a plain loop over the
    /// buffer: a debug build spent seconds on 40 MiB through `map` and the generic `random(in:)`.
    mutating func bytes(_ count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var index = 0
            while index < count {
                buffer[index] = UInt8(truncatingIfNeeded: next())
                index += 1
            }
        }
        return data
    }
}
