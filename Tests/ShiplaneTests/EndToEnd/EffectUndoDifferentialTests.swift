import Foundation
import Testing

/// A lane that makes one effect of each local kind and a GitHub draft: files rewritten, a commit,
/// a tag moved with `force`, a folder and an archive made, a draft release with an asset.
private let everyEffectLane = #"""
import Shiplane
struct Effects: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = try lane.bumpVersion(.minor)
        try lane.commitVersionBump()
        try lane.addGitTag("v1.4.0", message: "moved by the run", force: true)
        let archive = try lane.archive("VERSION", to: "dist/app-\(version).tar.gz")
        try await lane.githubRelease(tag: "v1.4.0", notes: "notes", assets: [archive])
    }
}
"""#

/// Everything the lane can change, read with the git command and from the GitHub stand-in.
private struct World: Equatable, CustomStringConvertible {
    var refs: String
    var status: String
    var files: [String: String]
    var releases: [String]
    var record: Bool

    init(_ repo: TemporaryRepository, _ github: FakeGitHub) throws {
        // Each ref with its object: an annotated tag shows its tag object, so a tag deleted and
        // made anew, or left on the run's tag object, differs from the one it replaced.
        refs = try repo.git("for-each-ref", "--format=%(refname) %(objectname) %(*objectname)")
        status = try repo.git("status", "--porcelain", "--untracked-files=all")
        files = ["VERSION", "App.xcconfig"].reduce(into: [:]) { $0[$1] = repo.read($1) ?? "-" }
        releases = github.allReleases.map { "\($0.tag) draft=\($0.draft)" }
        record = FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json")
    }

    var description: String { "refs:\n\(refs)\nstatus: [\(status)]\nfiles: \(files)\nreleases: \(releases)\nrecord: \(record)" }
}

/// One effect, one undo: the same effects undone in the run, by the supervisor after the lane
/// program is killed, and by `shiplane rollback` in another process leave the same world — the one
/// the run started from, a moved tag back on its own tag object.
@Suite("One undo per effect: in the run, after a kill, and from shiplane rollback", .serialized, .offThePool)
struct EffectUndoDifferentialTests {
    enum Path: String, CaseIterable, CustomStringConvertible {
        case inTheRun, afterAKill, shiplaneRollback
        var description: String { rawValue }
    }

    @Test(arguments: Path.allCases)
    func everyEffectIsUndoneToTheSameWorld(_ path: Path) async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let (repo, _) = try releasableRepository(lane: everyEffectLane)
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token]
        let start = try World(repo, github)
        let movedFrom = try repo.git("rev-parse", "refs/tags/v1.4.0")

        switch path {
        case .inTheRun:
            // The asset upload is refused (422 is never retried): the lane fails before the release is public.
            github.failNext(10, method: "POST", path: "/uploads/", status: 422, body: #"{"message":"Validation Failed"}"#, contentType: "application/json")
            let failed = try await repo.shiplaneAsync(["effects"], environment: environment)
            #expect(failed.status == 1, "\(failed.all)")
            #expect(failed.all.contains("move tag v1.4.0 back"), "\(failed.all)")
        case .afterAKill:
            // The upload hangs; the lane program is killed while it waits, and its supervisor settles the run.
            github.inject(.init(method: "POST", pathContains: "/uploads/", remaining: 1, action: .delay(seconds: 30)))
            let run = try SupervisedRun(["effects"], in: repo.path, environment: repo.environment.merging(environment) { $1 })
            run.wait { github.log.contains { $0.hasPrefix("POST /uploads/") } }
            #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
            let (status, all) = run.finish()
            #expect(status == 130, "\(all)")
        case .shiplaneRollback:
            github.failNext(10, method: "POST", path: "/uploads/", status: 422, body: #"{"message":"Validation Failed"}"#, contentType: "application/json")
            let failed = try await repo.shiplaneAsync(["effects", "--no-rollback"], environment: environment)
            #expect(failed.status == 1, "\(failed.all)")
            #expect(try repo.git("rev-parse", "refs/tags/v1.4.0") != movedFrom, "the tag was moved and kept by --no-rollback")
            #expect(github.allReleases.count == 1, "the draft was kept by --no-rollback")
            let rollback = try await repo.shiplaneAsync(["rollback"], environment: environment)
            #expect(rollback.status == 0, "\(rollback.all)")
        }
        let end = try World(repo, github)
        #expect(end == start, "\(path): \(end)\n--- started as ---\n\(start)")
        #expect(try repo.git("rev-parse", "refs/tags/v1.4.0") == movedFrom, "the moved tag is back on its own tag object")
        #expect(try repo.git("cat-file", "-p", "v1.4.0").contains("Release 1.4.0"))
        try repo.git("fsck", "--strict")
    }
}
