import Foundation
import Testing

@testable import Shiplane

@Suite("Conventional commit fuzzing", .offThePool)
struct ConventionalCommitFuzzTests {
    /// Pieces that stress the parser: structure characters, line endings, tokens and Unicode
    /// (combining marks, emoji with modifiers, right-to-left text, a lone carriage return, NUL).
    static let pieces: [String] = [
        "feat", "fix", "FEAT", "perf", "x", ":", ": ", "(", ")", "(scope)", "!", "#", "#12", " #", "\n", "\r\n", "\r",
        "\n\n", " ", "\t", "BREAKING CHANGE", "BREAKING-CHANGE", "Refs", "Closes", "Token", "-", "_", "[", "]", "<", ">",
        "*", "`", "```", "\\", "é", "e\u{301}", "\u{301}", "👍🏽", "👨‍👩‍👧", "שלום", "\u{0}", "\u{FEFF}", "\u{200D}", "…", "1.",
    ]

    @Test func randomMessagesNeverCrashAndKeepInvariants() {
        var generator = SeededGenerator(seed: 0x5EED_1234)
        let renderer = MarkdownChangelogRenderer(links: RemoteLinks(remoteURL: "https://github.com/o/r"))
        var parsedCount = 0
        for index in 0..<12_000 {
            var message = ""
            let count = Int.random(in: 0...40, using: &generator)
            if index % 2 == 0 {
                // Half the messages start with a valid header so the body and footer paths get exercised.
                message += ["feat: ", "fix(a): ", "chore!: ", "Docs(x y)!: "].randomElement(using: &generator) ?? ""
                message += ["a", "é", "#1", "*"].randomElement(using: &generator) ?? ""
            }
            for _ in 0..<count {
                message += Self.pieces.randomElement(using: &generator) ?? ""
            }
            guard let commit = ConventionalCommit(parsing: message) else { continue }
            parsedCount += 1
            #expect(!commit.type.isEmpty)
            #expect(commit.type == commit.type.lowercased())
            #expect(!commit.description.isEmpty)
            #expect(!commit.description.contains("\n"))
            #expect(commit.isBreaking == (commit.breakingDescription != nil))
            if commit.footers.contains(where: \.isBreakingChange) { #expect(commit.isBreaking) }

            let changelogCommit = ChangelogCommit(
                id: "0123456789abcdef", message: message, authorName: "a", authorEmail: "a@b", date: .init(timeIntervalSince1970: 0))
            let bullet = renderer.entry(for: changelogCommit, in: commit.isBreaking ? .breaking : .configured)
            #expect(!bullet.contains("\n"), "a bullet must stay on one line: \(bullet.debugDescription)")
            #expect(!bullet.contains("<"))
        }
        // The generator must produce a real share of conventional messages, or the invariants test nothing.
        #expect(parsedCount > 5_000)
    }
}
