import Foundation
import Testing

/// A release lane whose assets are built locally (an archive and its checksums, never committed).
private let artifactLane = #"""
import Shiplane
struct Release: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = try lane.bumpVersion(.minor)
        try lane.commitVersionBump(version)
        try lane.addGitTag("v\(version)")
        let archive = try lane.archive("VERSION", to: "dist/app-\(version).tar.gz")
        let sums = try lane.checksums([archive], to: "dist/SHA256SUMS")
        try await lane.push(tags: ["v\(version)"])
        try await lane.githubRelease(tag: "v\(version)", notes: "notes", assets: [archive, sums], repository: "acme/rocket")
    }
}
"""#

/// A CI retry on another runner has the repository and origin's record, not the files the first
/// runner built: the steps that made them run again there, and the release finishes with the
/// same bytes.
@Suite("Finishing in a fresh clone rebuilds local artifacts", .serialized, .offThePool)
struct FreshCloneArtifactsTests {
    @Test func aReleaseKilledAfterItsPushFinishesInACloneWithoutItsBuildOutputs() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let (repo, origin) = try releasableRepository(lane: artifactLane)
        try repo.write(".gitignore", ".build/\ndist/\n")
        try repo.git("add", ".gitignore")
        try repo.git("commit", "-q", "-m", "chore: ignore dist")
        try repo.git("push", "-q", "origin", "main")
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token]
        // Killed right after the push: past the point of no return, the release not yet made.
        let killed = try await repo.shiplaneAsync(["release"], environment: environment.merging(["SHIPLANE_FAULT": "after-step:6"]) { $1 })
        #expect(killed.status == 75, "\(killed.all)")
        #expect(github.allReleases.isEmpty)
        let built = try #require(FileManager.default.contents(atPath: repo.path + "/dist/app-1.5.0.tar.gz"))

        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        let clone = fresh.path + "/clone"
        #expect(!FileManager.default.fileExists(atPath: clone + "/dist"), "the clone has no build outputs")
        let finished = try await runProgramAsync(shiplaneBinary, ["release"], in: clone,
                                                 environment: fresh.environment.merging(environment.merging(["CI": "true"]) { $1 }) { $1 })
        #expect(finished.status == 0, "\(finished.all)")
        #expect(github.allReleases.map(\.tag) == ["v1.5.0"], "one release: \(github.allReleases)")
        #expect(github.allAssets.map(\.name).sorted() == ["SHA256SUMS", "app-1.5.0.tar.gz"])
        #expect(github.allAssets.first { $0.name == "app-1.5.0.tar.gz" }?.bytes == Array(built), "the same bytes as the first runner built")
        #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.5.0", "no second version")
    }
    /// The archive made again in the clone is checked against the digest origin's record keeps:
    /// other bytes (here another SOURCE_DATE_EPOCH) stop the archive step with both digests
    /// named, and nothing is published.
    @Test func anArtifactMadeAgainWithOtherBytesStopsTheRunNamingBothDigests() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let (repo, origin) = try releasableRepository(lane: artifactLane)
        try repo.write(".gitignore", ".build/\ndist/\n")
        try repo.git("add", ".gitignore")
        try repo.git("commit", "-q", "-m", "chore: ignore dist")
        try repo.git("push", "-q", "origin", "main")
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token]
        let killed = try await repo.shiplaneAsync(["release"], environment: environment.merging(["SHIPLANE_FAULT": "after-step:6"]) { $1 })
        #expect(killed.status == 75, "\(killed.all)")
        let first = try #require(runTool(["sha256sum", repo.path + "/dist/app-1.5.0.tar.gz"]).output.split(separator: " ").first.map(String.init))

        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        let clone = fresh.path + "/clone"
        let other = environment.merging(["CI": "true", "SOURCE_DATE_EPOCH": "1700000000"]) { $1 }
        let finished = try await runProgramAsync(shiplaneBinary, ["release"], in: clone, environment: fresh.environment.merging(other) { $1 })
        #expect(finished.status != 0, "\(finished.all)")
        #expect(finished.all.contains("dist/app-1.5.0.tar.gz holds sha256:"), "\(finished.all)")
        #expect(finished.all.contains("but the run's record says step 4 made it with sha256:\(first)"), "\(finished.all)")
        #expect(github.allReleases.isEmpty && github.allAssets.isEmpty, "nothing published: \(github.allReleases)")
    }
}
