import Foundation
import Testing

/// What the command line says reads right: counts, typos of built-in commands.
@Suite("Wording: counts agree with their nouns, a mistyped command is a command", .offThePool)
struct WordingTests {
    @Test func oneCommitAndOneStepAreSingular() throws {
        let repo = try versionedRepository()
        try repo.write("feature.txt", "x\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: one feature")
        let result = try repo.shiplane(["changelog", "--write", "CHANGELOG.md", "--version", "1.3.0"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.3.0: 1 commit"), "\(result.all)")
        #expect(!result.stdout.contains("1 commits") && !result.stdout.contains("(1 steps)"), "\(result.all)")
        #expect(result.stdout.contains("(1 step)"), "\(result.all)")
    }

    @Test func aMistypedBuiltInIsAnUnknownCommandEvenWithLanes() throws {
        let repo = try repositoryWithLanes(["Lanes/Ship.swift": "import Shiplane\nstruct Ship: Lane { func run(_ lane: LaneContext) async throws {} }\n"])
        let result = try repo.shiplane(["rollbak"])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("unknown command `rollbak`"), "\(result.all)")
        #expect(result.stderr.contains("did you mean: rollback"), "\(result.all)")
        #expect(!result.stderr.contains("unknown lane"), "\(result.all)")
    }
}
