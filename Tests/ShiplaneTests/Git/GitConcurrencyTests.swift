import Foundation
import Shiplane
import ShiplaneTesting
import Testing

/// Lane code may start git actions at once (a task group, `async let`): each tag is made and read
/// back, counts and tag lookups stay right, and `git fsck` finds the repository whole. (The lock
/// in `git { }` that makes them take turns is not what this catches on its own: libgit2 came
/// through this load in five runs without it too.)
@Suite("Git actions started at once", .offThePool)
struct GitConcurrencyTests {
    @Test func gitActionsStartedAtOnceTakeTurnsOnTheRepository() async throws {
        let repo = try TemporaryRepository()
        for index in 0..<20 {
            try repo.write("file\(index).txt", "\(index)\n")
            try repo.git("add", ".")
            try repo.git("commit", "-q", "-m", "fix: change \(index)")
        }
        let lane = TestLaneContext(workingDirectory: repo.path).context
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<48 {
                group.addTask {
                    try lane.addGitTag("v0.\(index).0", message: "Release 0.\(index).0")
                    #expect(try lane.gitTagExists("v0.\(index).0"))
                    #expect(try lane.numberOfCommits() == 21)
                    _ = try lane.lastGitTag()
                }
            }
            try await group.waitForAll()
        }
        let tags = try repo.git("tag", "--list").split(separator: "\n")
        #expect(tags.count == 48)
        #expect(try repo.git("fsck", "--strict", "--no-progress") == "")
    }
}
