import Foundation
import Testing
@testable import Shiplane

@Suite("SemanticVersion fuzzing", .offThePool)
struct SemanticVersionFuzzTests {
    static let pieces: [String] = [
        "0", "1", "2", "9", "00", "01", "10", "42", ".", ".", ".", "-", "+", "a", "z", "A", "Z", "x", "v", "V",
        "alpha", "beta", "rc", "--", "é", "١", "🚀", "\u{301}", " ", "\n", "\r\n", "_",
        "9223372036854775807", "9223372036854775808", "123456789012345678901234567890",
    ]

    static func randomText(_ generator: inout SeededGenerator) -> String {
        // Half the time start from a valid shape so that successes are common too.
        var text = ""
        if Bool.random(using: &generator) {
            text = "\(Int.random(in: 0...20, using: &generator)).\(Int.random(in: 0...20, using: &generator)).\(Int.random(in: 0...20, using: &generator))"
        }
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            text += pieces.randomElement(using: &generator) ?? ""
        }
        return text
    }

    @Test func parsingNeverCrashesAndSuccessesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED_2024)
        var successes = 0
        var failures = 0
        for _ in 0..<25_000 {
            let text = Self.randomText(&generator)
            do {
                let version = try SemanticVersion(parsing: text)
                successes += 1
                let reparsed = try SemanticVersion(parsing: version.description)
                #expect(reparsed == version, "\(text.debugDescription) → \(version)")
                #expect(reparsed.description == version.description)
                #expect(reparsed.hasSamePrecedence(as: version))
                // Canonical text differs from the input only by a dropped leading v.
                #expect(text == version.description || text.dropFirst() == version.description, "\(text.debugDescription)")
            } catch let error as SemanticVersionParseError {
                failures += 1
                #expect(!error.message.isEmpty)
                if let correction = error.correction {
                    #expect(SemanticVersion(correction) != nil, "correction \(correction) of \(text.debugDescription) must parse")
                }
            }
        }
        #expect(successes > 1_000)
        #expect(failures > 1_000)
    }
}
