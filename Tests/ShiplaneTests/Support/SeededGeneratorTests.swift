import Foundation
import Testing

@Suite("The seeded generator's bytes", .offThePool)
struct SeededGeneratorTests {
    /// `bytes(_:)` stands for `UInt8.random(in: 0...255, using:)` byte by byte in the tests that
    /// make large random files: the same bytes, in the same order, and the generator left where
    /// the byte-by-byte loop leaves it.
    @Test(arguments: [0, 7, 4141, 0x5EED_2024] as [UInt64])
    func bytesAreTheOnesRandomInTheFullRangeGives(_ seed: UInt64) {
        var byByte = SeededGenerator(seed: seed)
        var fast = SeededGenerator(seed: seed)
        for count in [0, 1, 1000, 65_536] {
            let expected = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &byByte) })
            #expect(fast.bytes(count) == expected, "seed \(seed), \(count) bytes")
        }
        #expect(fast.next() == byByte.next(), "seed \(seed): both generators are at the same place")
    }
}
