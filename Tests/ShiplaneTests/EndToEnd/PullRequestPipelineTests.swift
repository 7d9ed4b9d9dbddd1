import Foundation
import Testing

/// A release lane with a check before its first effect: the check runs in a pull request's
/// pipeline, the release does not.
private let checkedReleaseLane = #"""
import Shiplane

struct Release: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.sh("echo", "checks passed")
        let version = try lane.bumpVersion(.patch)
        // The lanes are untracked in this checkout.
        try lane.commitVersionBump(message: "chore(release): \(version)", allowOtherChanges: true)
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
    }
}
"""#

/// Pull-request pipelines never release: every CI's pull-request checkout is refused before any
/// effect, with the variable seen and the dry run to use instead; the dry run works there. Checked
/// with the `git` command on both repositories.
@Suite("Pull-request pipelines never release; a dry run there shows the release", .offThePool)
struct PullRequestPipelineTests {
    @Test(arguments: CIPullRequestPipeline.all)
    func aBumpIsRefusedBeforeAnyEffectNamingTheVariable(_ ci: CIPullRequestPipeline) throws {
        let repos = try CICheckoutRepositories(branch: "feature/login")
        let before = try repos.snapshot()
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push"], environment: ci.variables)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("refusing to release from a pull-request pipeline (\(ci.seen), "), "\(result.all)")
        #expect(result.stderr.contains("seen: \(ci.seen)"), "\(result.all)")
        #expect(result.stderr.contains("nobody merged"), "says why: \(result.all)")
        #expect(result.stderr.contains("run `shiplane bump patch --commit --tag --push --dry-run` in pull-request pipelines"), "\(result.all)")
        #expect(!result.stdout.contains("bumpVersion"), "no step ran: \(result.stdout)")
        #expect(try repos.snapshot() == before)
        #expect(!FileManager.default.fileExists(atPath: repos.checkout + "/.git/shiplane/run.json"), "no record left")
    }

    /// The bump alone writes the version file: refused too.
    @Test func aBumpWithoutCommitIsRefusedToo() throws {
        let repos = try CICheckoutRepositories(branch: "feature/login")
        let before = try repos.snapshot()
        let result = try repos.shiplane(["bump", "minor"], environment: CIPullRequestPipeline.all[0].variables)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("refusing to release from a pull-request pipeline"), "\(result.all)")
        #expect(try repos.snapshot() == before)
    }

    @Test(arguments: [CIPullRequestPipeline.all[0], CIPullRequestPipeline.all[2], CIPullRequestPipeline.all[7]])
    func aDryRunShowsTheReleaseSaysItWouldBeRefusedAndChangesNothing(_ ci: CIPullRequestPipeline) throws {
        let repos = try CICheckoutRepositories(branch: "feature/login")
        let head = try repos.inCheckout("rev-parse", "--short", "HEAD")
        let before = try repos.snapshot()
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push", "--dry-run"], environment: ci.variables)
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would tag the release commit (made on top of \(head)) as v1.2.4"), "\(result.stdout)")
        #expect(result.stderr.contains("Note: this is a pull-request pipeline (\(ci.seen), "), "\(result.all)")
        #expect(result.stderr.contains("the real run would stop before its first change (exit 4)"), "\(result.all)")
        #expect(try repos.snapshot() == before)
    }

    /// `SHIPLANE_ALLOW_PULL_REQUEST=1`: a team that really releases from a pull request's pipeline
    /// says so, and the release goes to the branch the CI names.
    @Test func theOverrideReleasesAllTheSame() throws {
        let repos = try CICheckoutRepositories(branch: "feature/login")
        let variables = CIPullRequestPipeline.all[0].variables.merging(["SHIPLANE_ALLOW_PULL_REQUEST": "1"]) { $1 }
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push"], environment: variables)
        #expect(result.status == 0, "\(result.all)")
        let head = try repos.inCheckout("rev-parse", "HEAD")
        #expect(try repos.onOrigin("rev-parse", "refs/heads/feature/login") == head)
        #expect(try repos.onOrigin("rev-parse", "v1.2.4^{commit}") == head)
        try repos.onOrigin("fsck", "--strict", "--no-progress")
    }

    /// A lane runs its checks in a pull request's pipeline (a `sh` step), and is stopped at its
    /// first effect: no file written, no commit, tag or push. Its dry run shows the whole release.
    @Test func aLaneRunsItsChecksAndIsRefusedAtItsFirstEffect() throws {
        let repos = try CICheckoutRepositories(branch: "feature/login")
        let lanes = repos.checkout + "/Lanes"
        try FileManager.default.createDirectory(atPath: lanes, withIntermediateDirectories: true)
        try Data(checkedReleaseLane.utf8).write(to: URL(fileURLWithPath: lanes + "/Release.swift"))
        let before = try repos.snapshot()
        let variables = CIPullRequestPipeline.all[2].variables
        let result = try repos.shiplane(["release"], environment: variables)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stdout.contains("checks passed"), "the check ran: \(result.stdout)")
        #expect(result.stderr.contains("refusing to release from a pull-request pipeline (CI_PIPELINE_SOURCE=merge_request_event, GitLab CI)"), "\(result.all)")
        #expect(result.stderr.contains("run `shiplane release --dry-run` in pull-request pipelines"), "\(result.all)")
        #expect(try repos.snapshot() == before)
        // No record, and no saved copy of a file the run was about to write.
        let left = (try? FileManager.default.subpathsOfDirectory(atPath: repos.checkout + "/.git/shiplane")) ?? []
        #expect(left.filter { $0 != "lock" }.isEmpty, "\(left)")

        let dryRun = try repos.shiplane(["release", "--dry-run"], environment: variables)
        #expect(dryRun.status == 0, "\(dryRun.all)")
        #expect(dryRun.stdout.contains("would tag the release commit"), "\(dryRun.stdout)")
        #expect(try repos.snapshot() == before)
    }
}
