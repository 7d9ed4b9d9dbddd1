import Foundation
import ShiplaneTesting
import Testing

/// A lane that releases on a detached HEAD to the branch it is told, and can fail after tagging.
struct DetachedReleaseLane: Lane {
    @Option var branch: String?
    @Flag var failAfterTag = false

    func run(_ whole: LaneContext) async throws {
        let lane = branch.map { whole.onBranch($0) } ?? whole
        try lane.ensureGitBranch(matching: "main")
        let version = try lane.bumpVersion(.patch)
        try lane.commitVersionBump(version)
        try lane.addGitTag("v\(version)")
        if failAfterTag { throw ShiplaneError("the lane failed after tagging") }
    }
}

@Suite("Lanes on a detached HEAD: lane.onBranch, the CI's variables, and the run's rollback", .offThePool)
struct DetachedLaneTests {
    private func detachedFixture() throws -> (FixtureRepository, String) {
        let repo = try FixtureRepository(files: ["VERSION": "1.2.3\n"])
        try repo.git("checkout", "-q", "--detach")
        return (repo, try repo.git("rev-parse", "HEAD"))
    }

    @Test(arguments: [
        (["--branch", "main"], [:]),
        ([], ["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"]),
    ] as [([String], [String: String])])
    func theCommitIsMadeOnTheDetachedHead(_ arguments: [String], _ environment: [String: String]) async throws {
        let (repo, start) = try detachedFixture()
        let result = try await TestLaneContext(workingDirectory: repo.path, environment: environment).run(DetachedReleaseLane.self, arguments: arguments)
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        let head = try repo.git("rev-parse", "HEAD")
        #expect(try repo.git("rev-parse", "--abbrev-ref", "HEAD") == "HEAD")
        #expect(try repo.git("rev-parse", "HEAD^") == start)
        #expect(try repo.git("rev-parse", "v1.2.4^{commit}") == head)
        #expect(try repo.git("rev-parse", "main") == start, "the local branch is not moved: the push sends HEAD to it")
        _ = try repo.git("fsck", "--strict", "--no-progress")
    }

    @Test func aFailureLaterMovesTheDetachedHeadBack() async throws {
        let (repo, start) = try detachedFixture()
        let result = try await TestLaneContext(workingDirectory: repo.path)
            .run(DetachedReleaseLane.self, arguments: ["--branch", "main", "--fail-after-tag"])
        #expect(result.failure != nil)
        #expect(try repo.git("rev-parse", "HEAD") == start)
        #expect(try repo.git("rev-parse", "--abbrev-ref", "HEAD") == "HEAD")
        #expect(try repo.git("tag", "--list") == "")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func noBranchKnownStopsAtEnsureGitBranch() async throws {
        let (repo, start) = try detachedFixture()
        let result = try await TestLaneContext(workingDirectory: repo.path).run(DetachedReleaseLane.self)
        #expect(result.steps.map(\.name) == ["ensureGitBranch"])
        let messages = (result.failure?.allErrors ?? []).map { ($0 as? any ReportableError)?.message ?? "\($0)" }
        #expect(messages.contains { $0.contains("no branch is known") }, "\(messages)")
        #expect(try repo.git("rev-parse", "HEAD") == start)
    }
}
