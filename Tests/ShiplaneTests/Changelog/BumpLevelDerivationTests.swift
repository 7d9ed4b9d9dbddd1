import Testing

@testable import Shiplane

@Suite("Bump derivation", .offThePool)
struct BumpLevelDerivationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var messages: [String]
        var majorIsZero: Bool
        var expected: BumpLevel?
        var testDescription: String { "\(messages) pre-1.0=\(majorIsZero) → \(expected?.name ?? "none")" }
    }

    @Test(
        arguments: [
            Case(messages: ["fix: a"], majorIsZero: false, expected: .patch),
            Case(messages: ["perf: a"], majorIsZero: false, expected: .patch),
            Case(messages: ["fix: a", "feat: b"], majorIsZero: false, expected: .minor),
            Case(messages: ["feat: b", "fix!: a"], majorIsZero: false, expected: .major),
            Case(messages: ["docs: a\n\nBREAKING CHANGE: gone"], majorIsZero: false, expected: .major),
            Case(messages: ["chore!: drop node"], majorIsZero: false, expected: .major),
            Case(messages: ["docs: a", "chore: b", "Merge branch 'x'"], majorIsZero: false, expected: nil),
            Case(messages: [], majorIsZero: false, expected: nil),
            // Before 1.0.0 a breaking change bumps minor, feat stays minor, fix stays patch.
            Case(messages: ["feat!: a"], majorIsZero: true, expected: .minor),
            Case(messages: ["fix: a", "refactor: b\n\nBREAKING CHANGE: api"], majorIsZero: true, expected: .minor),
            Case(messages: ["feat: a"], majorIsZero: true, expected: .minor),
            Case(messages: ["fix: a"], majorIsZero: true, expected: .patch),
            Case(messages: ["FIX: a"], majorIsZero: true, expected: .patch),
        ])
    func derivesBump(_ example: Case) {
        #expect(ConventionalCommit.bumpLevel(for: example.messages, currentMajorIsZero: example.majorIsZero) == example.expected)
    }

    @Test func stopsReadingOnceTheHighestLevelIsReached() {
        var read = 0
        let messages = ["feat!: a", "fix: b", "fix: c"].lazy.map { message -> String in
            read += 1
            return message
        }
        #expect(ConventionalCommit.bumpLevel(for: messages, currentMajorIsZero: false) == .major)
        #expect(read == 1)
    }
}
