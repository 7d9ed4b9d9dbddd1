import Foundation
import Testing

/// The lane of ../shared/DESIGN.md, verbatim: it must compile and run as written.
let designExampleLane = #"""
// Lanes/Release.swift
import Shiplane

struct Release: Lane {
    static let summary = "Ship a new version: bump, build, tag, changelog, GitHub release, Slack"

    @Option(help: "major, minor, patch, auto (from commits since the last tag) or a version like 1.6.0")
    var bump: VersionBump = .auto

    @Flag(help: "Mark the GitHub release as a prerelease")
    var prerelease = false

    func run(_ lane: LaneContext) async throws {
        try lane.ensureGitBranch(matching: "main|release/.+")
        try lane.ensureGitStatusClean()
        let version = try lane.bumpVersion(bump)              // finds VERSION, Info.plist, pbxproj, ...
        let build = try lane.incrementBuildNumber()
        try await lane.sh("swift", "build", "-c", "release")
        try lane.commitVersionBump(message: "Version bump to \(version) (\(build))")
        try lane.addGitTag("v\(version)")
        let notes = try lane.changelog(since: .lastTag)
        try await lane.push(tags: ["v\(version)"])
        try await lane.githubRelease(tag: "v\(version)", notes: notes,
                                     assets: [".build/release/app.tar.gz"], prerelease: prerelease)
        try await lane.slack("Released \(version) 🚀")
    }
}
"""#

/// A Swift package repository ready for the example lane: version files, a tag, a feature
/// commit since, an origin that reads as GitHub but pushes to a local bare repository.
func releasableRepository(lane: String = designExampleLane) throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
    let repo = try TemporaryRepository()
    let origin = try TemporaryRepository(bare: true)
    try repo.write("Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"app\", targets: [.executableTarget(name: \"app\", path: \"Sources/app\")])\n")
    try repo.write("Sources/app/main.swift", "print(\"app\")\n")
    try repo.write("VERSION", "1.4.0\n")
    try repo.write("App.xcconfig", "MARKETING_VERSION = 1.4.0\nCURRENT_PROJECT_VERSION = 7\n")
    try repo.write(".gitignore", ".build/\n")
    try repo.write("Lanes/Release.swift", lane)
    try repo.git("add", ".")
    try repo.git("commit", "-q", "-m", "chore: start")
    try repo.git("tag", "-a", "v1.4.0", "-m", "Release 1.4.0")
    try repo.write("Sources/app/feature.swift", "let feature = 1\n")
    try repo.git("add", ".")
    try repo.git("commit", "-q", "-m", "feat(app): a new feature\n\nCloses #7")
    try repo.git("remote", "add", "origin", "https://github.com/acme/rocket.git")
    try repo.git("config", "url.\(origin.path).insteadOf", "https://github.com/acme/rocket.git")
    try repo.git("push", "-q", "origin", "main", "v1.4.0")
    // SwiftPM makes .build/release a symlink to .build/<triple>/release: put the asset there.
    try repo.write(".build/x86_64-unknown-linux-gnu/release/app.tar.gz", "pretend archive bytes")
    try FileManager.default.createSymbolicLink(atPath: repo.path + "/.build/release", withDestinationPath: "x86_64-unknown-linux-gnu/release")
    return (repo, origin)
}

/// A lane that only publishes the GitHub release of v1.4.0 with the archive as its asset.
let publishOnlyLane = #"""
import Shiplane
struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.githubRelease(tag: "v1.4.0", notes: "notes", assets: [".build/release/app.tar.gz"])
    }
}
"""#

@Suite("Release lanes: DESIGN.md's example, GitHub releases, Slack, rollback", .serialized, .offThePool)
struct ReleaseLaneTests {
    @Test func theDesignExampleRunsAsWritten() async throws {
        let github = FakeGitHub()
        let slack = FakeSlack()
        try await github.start()
        try await slack.start()
        defer { github.stop(); slack.stop() }
        let (repo, origin) = try releasableRepository()
        let result = try await repo.shiplaneAsync(["release"], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL,
        ])
        #expect(result.status == 0, "\(result.all)")
        #expect(repo.read("VERSION") == "1.5.0\n")
        #expect(repo.read("App.xcconfig") == "MARKETING_VERSION = 1.5.0\nCURRENT_PROJECT_VERSION = 8\n")
        try repo.git("fsck", "--strict")
        #expect(try repo.git("log", "-1", "--format=%s") == "Version bump to 1.5.0 (8)")
        #expect(try repo.git("cat-file", "-t", "v1.5.0") == "tag")
        let remoteTags = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "tag", "--list"], in: origin.root, environment: origin.environment).stdout
        #expect(remoteTags == "v1.4.0\nv1.5.0\n")
        let release = try #require(github.allReleases.first)
        #expect(release.tag == "v1.5.0")
        #expect(!release.draft)
        #expect(release.body.contains("a new feature"))
        #expect(github.allAssets.map(\.name) == ["app.tar.gz"])
        let text = slack.payloads.first?["text"] as? String
        #expect(text == "Released 1.5.0 🚀")
        #expect(!result.all.contains(github.token))
    }

    @Test func aFailureAfterThePushIsFinishedByResumeNeverHalfUndone() async throws {
        let github = FakeGitHub()
        let slack = FakeSlack()
        try await github.start()
        try await slack.start()
        defer { github.stop(); slack.stop() }
        let (repo, origin) = try releasableRepository()
        let report = repo.root + "/report.json"
        // No SLACK_WEBHOOK_URL: the last step fails after the push and the published release.
        let failed = try await repo.shiplaneAsync(["release", "--report-json", report], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token,
        ])
        #expect(failed.status == 75, "\(failed.all)")
        #expect(failed.stderr.contains("SLACK_WEBHOOK_URL"))
        #expect(failed.stderr.contains("point of no return"))
        #expect(failed.stderr.contains("shiplane resume"))
        // Nothing others can see was taken back: the release, the commit and the tag stay.
        #expect(github.allReleases.map(\.tag) == ["v1.5.0"])
        #expect(repo.read("VERSION") == "1.5.0\n")
        let remoteTags = { try runProgram("/usr/bin/git", ["--git-dir", origin.path, "tag", "--list"], in: origin.root, environment: origin.environment).stdout }
        #expect(try remoteTags() == "v1.4.0\nv1.5.0\n")
        let json = String(decoding: FileManager.default.contents(atPath: report) ?? Data(), as: UTF8.self)
        #expect(json.contains("\"exitCode\" : 75"), "\(json)")
        #expect(!json.contains(github.token))
        #expect(!failed.all.contains(github.token))

        // Another command is refused while the release is unfinished, and changes nothing.
        let other = try await repo.shiplaneAsync(["bump", "patch"], environment: [:])
        #expect(other.status == 7, "\(other.all)")
        #expect(other.stderr.contains("shiplane resume") && other.stderr.contains("shiplane rollback"))
        #expect(repo.read("VERSION") == "1.5.0\n")

        // Resume finishes the same release: same version, no second tag or release, one message.
        let resumed = try await repo.shiplaneAsync(["resume"], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL,
        ])
        #expect(resumed.status == 0, "\(resumed.all)")
        #expect(resumed.stdout.contains("done before the interruption"))
        #expect(repo.read("VERSION") == "1.5.0\n")
        #expect(try remoteTags() == "v1.4.0\nv1.5.0\n")
        #expect(github.allReleases.map(\.tag) == ["v1.5.0"])
        #expect(slack.payloads.count == 1)
        #expect(try repo.git("tag", "--list") == "v1.4.0\nv1.5.0")
        #expect(try repo.git("log", "--format=%s", "-2") == "Version bump to 1.5.0 (8)\nfeat(app): a new feature")
        try repo.git("fsck", "--strict")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "a finished run leaves no record")
    }

    @Test func uploadsThatKeepFailingLeaveNoHalfPublishedRelease() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        github.failNext(50, method: "POST", path: "/assets")
        let (repo, _) = try releasableRepository(lane: publishOnlyLane)
        let result = try await repo.shiplaneAsync(["publish"], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token,
            "SHIPLANE_HTTP_ATTEMPTS": "2", "SHIPLANE_HTTP_RETRY_DELAY": "0.05",
        ])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("attempt") || result.stdout.contains("502"), "retries are shown")
        #expect(github.allReleases.isEmpty, "the draft was deleted by the rollback")
    }

    @Test func aMissingTokenIsNamedBeforeAnyRequest() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let (repo, _) = try releasableRepository()
        let result = try await repo.shiplaneAsync(["release", "--dry-run"], environment: ["GITHUB_API_URL": github.baseURL])
        #expect(result.status == 1)
        #expect(result.stderr.contains("GITHUB_TOKEN"))
        #expect(github.log.isEmpty)
    }

    @Test func dryRunShowsTheWholeReleaseAndChangesNothing() async throws {
        let github = FakeGitHub()
        let slack = FakeSlack()
        try await github.start()
        try await slack.start()
        defer { github.stop(); slack.stop() }
        let (repo, origin) = try releasableRepository()
        let head = try repo.git("rev-parse", "HEAD")
        let result = try await repo.shiplaneAsync(["release", "--dry-run"], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL,
        ])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.4.0 → 1.5.0"))
        #expect(result.stdout.contains("would commit"))
        #expect(result.stdout.contains("would tag"))
        #expect(result.stdout.contains("would push main, v1.5.0 to origin"))
        #expect(result.stdout.contains("would publish v1.5.0"))
        #expect(result.stdout.contains("would post to Slack: Released 1.5.0"))
        #expect(result.stdout.contains("a new feature"), "the notes are those of the release")
        #expect(repo.read("VERSION") == "1.4.0\n")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(github.allReleases.isEmpty)
        #expect(slack.payloads.isEmpty)
        let remoteTags = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "tag", "--list"], in: origin.root, environment: origin.environment).stdout
        #expect(remoteTags == "v1.4.0\n")
        #expect(!result.all.contains(slack.webhookURL))
    }
}

@Suite("The release lane killed after every step, then run again", .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct ReleaseLaneFaultTests {
    /// DESIGN.md's release lane (GitHub release with an asset, Slack) under the supervisor: the lane
    /// program's process group gets SIGKILL, SIGTERM (a cancelled CI job) or SIGINT (Ctrl-C) after
    /// each step; the run (SIGTERM, SIGINT) or `shiplane` (SIGKILL) settles it — rolled back before
    /// the push, left unfinished after — then the same command again ends in exactly one release:
    /// one tag here and on origin, one published release with its asset, one message. The lane is
    /// `quickReleaseLane`: every step of DESIGN.md's lane, its build a short child command and its
    /// asset made by an `archive` step (one step more to be killed after), without a
    /// `swift build` of the package in each of the 40-odd repositories
    /// (`theDesignExampleRunsAsWritten` runs the lane as written).
    @Test(arguments: ["", ":TERM", ":INT"])
    func killedAfterEveryStepTheSameCommandMakesExactlyOneRelease(signal: String) async throws {
        var fired = 0
        for step in 1...15 {
            let github = FakeGitHub()
            let slack = FakeSlack()
            try await github.start()
            try await slack.start()
            defer { github.stop(); slack.stop() }
            let (repo, origin) = try releasableRepository(lane: quickReleaseLane)
            let start = try repo.git("rev-parse", "HEAD")
            let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL]
            let killed = try await repo.shiplaneAsync(["release"], environment: environment.merging(["SHIPLANE_FAULT": "after-step:\(step)\(signal)"]) { $1 })
            if killed.status == 0 { break }
            fired += 1
            #expect(killed.status == 130 || killed.status == 75, "after step \(step): \(killed.all)")
            if killed.status == 130 {
                // Rolled back before the push: nothing of the release is left anywhere.
                #expect(try repo.git("rev-parse", "HEAD") == start, "after step \(step)\(signal): \(killed.all)")
                #expect(try repo.git("tag", "--list") == "v1.4.0", "after step \(step)\(signal)")
                #expect(try origin.git("tag", "--list") == "v1.4.0", "after step \(step)\(signal)")
                #expect(github.allReleases.isEmpty && slack.payloads.isEmpty, "after step \(step)\(signal)")
            }
            let again = try await repo.shiplaneAsync(["release"], environment: environment)
            #expect(again.status == 0, "after step \(step): \(again.all)")
            #expect(repo.read("VERSION") == "1.5.0\n", "after step \(step)")
            #expect(try repo.git("tag", "--list") == "v1.4.0\nv1.5.0", "after step \(step)")
            #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.5.0", "after step \(step)")
            #expect(try repo.git("rev-parse", "HEAD~1") == start, "after step \(step): one release commit")
            #expect(try origin.git("rev-parse", "refs/heads/main") == (try repo.git("rev-parse", "HEAD")), "after step \(step)")
            #expect(github.allReleases.map(\.tag) == ["v1.5.0"] && github.allReleases.allSatisfy { !$0.draft }, "after step \(step)")
            #expect(github.allAssets.map(\.name) == ["app.tar.gz"], "after step \(step)")
            #expect(slack.payloads.count == 1, "after step \(step): \(slack.payloads.count) messages")
            #expect(try repo.git("status", "--porcelain").isEmpty, "after step \(step)")
            try repo.git("fsck", "--strict")
            try origin.git("fsck", "--strict")
            #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "after step \(step)")
        }
        #expect(fired >= 8, "the fault fired after each of the lane's steps")
    }

    /// The release lane killed after its push, its GitHub release or its Slack message, retried as
    /// CI does: in a fresh clone of origin. The record pushed with the release (and kept up to date
    /// after it) finishes it there: one release, one message.
    @Test(arguments: [9, 10, 11])
    func aCIRetryInAFreshCloneFinishesTheRelease(killedAfterStep step: Int) async throws {
        let github = FakeGitHub()
        let slack = FakeSlack()
        try await github.start()
        try await slack.start()
        defer { github.stop(); slack.stop() }
        let (repo, origin) = try releasableRepository()
        let environment = ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL, "CI": "true"]
        let killed = try await repo.shiplaneAsync(["release"], environment: environment.merging(["SHIPLANE_FAULT": "after-step:\(step)"]) { $1 })
        #expect(killed.status == 75, "\(killed.all)")
        // The fresh clone: the same origin URL the release pushed to, the asset built again.
        let clone = repo.root + "/ci-clone"
        try repo.git("clone", "-q", origin.path, clone)
        for step in [["remote", "set-url", "origin", "https://github.com/acme/rocket.git"],
                     ["config", "url.\(origin.path).insteadOf", "https://github.com/acme/rocket.git"]] {
            #expect(try runProgram("/usr/bin/git", step, in: clone, environment: repo.environment).status == 0)
        }
        try FileManager.default.createDirectory(atPath: clone + "/.build/x86_64-unknown-linux-gnu/release", withIntermediateDirectories: true)
        try Data("pretend archive bytes".utf8).write(to: URL(fileURLWithPath: clone + "/.build/x86_64-unknown-linux-gnu/release/app.tar.gz"))
        try FileManager.default.createSymbolicLink(atPath: clone + "/.build/release", withDestinationPath: "x86_64-unknown-linux-gnu/release")
        var cloneEnvironment = repo.environment
        for (key, value) in environment { cloneEnvironment[key] = value }
        let again = try await runProgramAsync(shiplaneBinary, ["release"], in: clone, environment: cloneEnvironment)
        #expect(again.status == 0, "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.5.0", "no second version")
        #expect(github.allReleases.map(\.tag) == ["v1.5.0"] && github.allReleases.allSatisfy { !$0.draft })
        #expect(github.allAssets.map(\.name) == ["app.tar.gz"])
        #expect(github.allReleases.first?.body.contains("a new feature") == true, "the notes of the first run, replayed")
        #expect(slack.payloads.count == 1, "after step \(step): \(slack.payloads.count) messages")
        try origin.git("fsck", "--strict")
    }

    /// A draft the run created, then the lane program killed before its own rollback could delete
    /// it: the supervisor deletes it from the record, through the GitHub API, with the token.
    @Test func aDraftLeftByAKilledLaneProgramIsDeletedFromTheRecord() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        github.failNext(50, method: "POST", path: "/assets")
        let (repo, _) = try releasableRepository(lane: publishOnlyLane)
        let result = try await repo.shiplaneAsync(["publish"], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token,
            "SHIPLANE_HTTP_ATTEMPTS": "1", "SHIPLANE_FAULT": "after-effect:1",
        ])
        #expect(result.status == 130, "\(result.all)")
        #expect(result.all.contains("SIGKILL"), "\(result.all)")
        #expect(github.allReleases.isEmpty, "the draft was deleted from the record: \(github.allReleases)")
        #expect(github.log.contains { $0.hasPrefix("DELETE /repos/acme/rocket/releases/") }, "\(github.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
        #expect(!result.all.contains(github.token))
    }

    /// The lane program killed while GitHub has made the draft but not yet answered: the record
    /// holds the release without its id (written before the call), so the supervisor finds the
    /// draft by its tag and deletes it.
    @Test func aDraftWhoseAnswerNeverCameIsFoundByItsTagAndDeleted() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        github.inject(.init(method: "POST", pathContains: "/releases", remaining: 1, action: .answerLate(seconds: 60)))
        let (repo, _) = try releasableRepository(lane: publishOnlyLane)
        var environment = repo.environment
        for (key, value) in ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token] { environment[key] = value }
        let run = try SupervisedRun(["publish"], in: repo.path, environment: environment)
        // Wait (at most 60 s) for the draft to exist on the server, then kill the lane program.
        run.wait { !github.allReleases.isEmpty }
        #expect(github.allReleases.map(\.draft) == [true], "the create call landed: \(github.log)")
        #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        #expect(github.allReleases.isEmpty, "the draft was found by its tag and deleted: \(github.allReleases)")
        #expect(github.log.contains { $0.hasPrefix("DELETE /repos/acme/rocket/releases/") }, "\(github.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(all)")
        #expect(!all.contains(github.token))
    }

    /// Killed once the release is written down but before the create call went out: the
    /// rollback looks, finds no release for the tag, and deletes nothing.
    @Test func killedBeforeTheCreateCallTheRollbackDeletesNothing() async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        _ = github.addRelease(tag: "v1.3.0", draft: false)
        let (repo, _) = try releasableRepository(lane: publishOnlyLane)
        let result = try await repo.shiplaneAsync(["publish"], environment: [
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SHIPLANE_FAULT": "before-effect:1",
        ])
        #expect(result.status == 130, "\(result.all)")
        #expect(!github.log.contains("POST /repos/acme/rocket/releases"), "\(github.log)")
        #expect(github.allReleases.map(\.tag) == ["v1.3.0"], "the other release stays: \(github.allReleases)")
        #expect(!github.log.contains { $0.hasPrefix("DELETE") }, "\(github.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(result.all)")
    }
}
