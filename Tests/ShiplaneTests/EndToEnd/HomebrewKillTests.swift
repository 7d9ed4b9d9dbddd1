import Foundation
import Testing
@testable import Shiplane

private let brewLane = #"""
import Shiplane

struct Brew: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.homebrewFormula("demo", tap: lane.environment["TAP"] ?? "", files: ["dist/demo-1.2.0.tar.gz"], version: "1.2.0",
                                       downloadURL: "https://example.com/releases/download/v1.2.0/{name}", description: "A demo",
                                       homepage: "https://example.com/demo", pullRequest: lane.environment["PULL_REQUEST"] == "1")
        if lane.environment["FAIL_AFTER"] == "1" { throw ValidationFailure(problems: ["a later step fails"]) }
    }
}
"""#

/// The `shiplane` binary SIGKILLed (itself and its lane program, as a dead CI runner) in the middle
/// of publishing a formula, then the same command run from a fresh clone: one formula, one pull
/// request, nothing twice. A kill past the point of no return, resumed from a fresh clone and rolled
/// back, is `HomebrewForgeProposalTests`', run on every forge.
@Suite("Homebrew tap: the shiplane binary killed mid-publish, re-run from a fresh clone", .serialized, .offThePool)
struct HomebrewKillTests {
    static let token = "ghp_TapKillToken_77c1e0b2f9"
    static let archive = "a demo archive\n"

    /// The project (with its lane and archive) pushed to a bare origin; the tap at
    /// `acme/homebrew-tap.git` over `git http-backend`.
    private func setUp(hook: (name: String, script: String)?) async throws -> (project: TemporaryRepository, origin: String, tap: String, server: GitHTTPServer) {
        let project = try TemporaryRepository()
        try project.write("Lanes/Brew.swift", brewLane)
        try project.write("dist/demo-1.2.0.tar.gz", Self.archive)
        try project.git("add", ".")
        try project.git("commit", "-q", "-m", "chore: the brew lane")
        let origin = project.root + "/origin.git"
        try project.git("init", "-q", "--bare", "-b", "main", origin)
        try project.git("push", "-q", origin, "main")
        let served = project.root + "/served"
        let tap = served + "/acme/homebrew-tap.git"
        try FileManager.default.createDirectory(atPath: served + "/acme", withIntermediateDirectories: true)
        try project.git("init", "-q", "--bare", "-b", "main", tap)
        try project.git("push", "-q", tap, "HEAD~1:refs/heads/main")
        if let hook {
            let path = tap + "/hooks/" + hook.name
            try Data(hook.script.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        let server = try await GitHTTPServer.start(projectRoot: served, username: "x-access-token", password: Self.token, environment: project.environment)
        return (project, origin, tap, server)
    }

    /// `shiplane brew` in a new clone of `origin`.
    /// What a pull-request-mode run killed while GitHub opens the pull request leaves: the tap's
    /// branch pushed, GitHub holding one pull request whose answer never came, and the servers
    /// still up (the caller stops them).
    private struct KilledPullRequest {
        var project: TemporaryRepository, origin: String, tap: String, server: GitHTTPServer
        var github: FakeGitHub, environment: [String: String], clone: String
    }

    /// Runs `brew` in pull-request mode (the tap's main refuses pushes) in a clone and SIGKILLs it
    /// once GitHub has taken the pull request, before GitHub answers.
    private func killedWhileGitHubOpensThePullRequest() async throws -> KilledPullRequest {
        let protect = "#!/bin/sh\nwhile read old new ref; do [ \"$ref\" = refs/heads/main ] && exit 1; done\nexit 0\n"
        let (project, origin, tap, server) = try await setUp(hook: ("pre-receive", protect))
        let github = FakeGitHub(owner: "acme", repo: "homebrew-tap", token: Self.token)
        let gitEnvironment = project.environment, root = project.root
        github.pulls = FakeGitHubPulls(tip: { branch in
            let found = try? runProgram("/usr/bin/git", ["--git-dir=" + tap, "rev-parse", "--verify", "-q", "refs/heads/" + branch], in: root, environment: gitEnvironment)
            guard let found, found.status == 0 else { return nil }
            return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        })
        do {
            try await github.start()
            github.inject(.init(method: "POST", pathContains: "/pulls", remaining: 1, action: .answerLate(seconds: 20)))
            let environment = project.environment.merging(["TAP": server.url("acme/homebrew-tap.git"), "SHIPLANE_TAP_TOKEN": Self.token,
                                                           "GITHUB_API_URL": github.baseURL, "PULL_REQUEST": "1"]) { $1 }
            let clone = project.root + "/first"
            try project.git("clone", "-q", origin, clone)
            let run = try SupervisedRun(["brew"], in: clone, environment: environment)
            run.wait { github.pulls?.opened == 1 }
            #expect(github.pulls?.opened == 1, "GitHub took the pull request")
            try run.killEverything()
            return KilledPullRequest(project: project, origin: origin, tap: tap, server: server, github: github, environment: environment, clone: clone)
        } catch {
            github.stop()
            server.stop()
            throw error
        }
    }

    private func runInFreshClone(_ project: TemporaryRepository, origin: String, environment: [String: String]) async throws -> CommandOutput {
        let clone = project.root + "/clone-\(UUID().uuidString.prefix(8))"
        try project.git("clone", "-q", origin, clone)
        return try await runProgramAsync(shiplaneBinary, ["brew"], in: clone, environment: project.environment.merging(environment) { $1 })
    }

    private func git(_ project: TemporaryRepository, _ bare: String, _ arguments: String...) throws -> String {
        let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare] + arguments, in: project.root, environment: project.environment)
        return output.status == 0 ? output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : ""
    }

    /// Killed while the tap has taken the push (its ref moved) but has not answered (its
    /// post-receive hook holds the answer): the fresh clone's run finds the formula on main and
    /// sends nothing; main holds one formula commit.
    @Test func killedWhileTheTapAnswersThePushThenAFreshCloneSendsNothing() async throws {
        let marker = NSTemporaryDirectory() + "shiplane-brew-kill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: marker + ".landed"); try? FileManager.default.removeItem(atPath: marker + ".go") }
        let hold = "#!/bin/sh\ntouch \(marker).landed\ni=0\nwhile [ ! -f \(marker).go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n"
        let (project, origin, tap, server) = try await setUp(hook: ("post-receive", hold))
        defer { server.stop() }
        let base = try git(project, tap, "rev-parse", "main")
        let environment = project.environment.merging(["TAP": server.url("acme/homebrew-tap.git"), "SHIPLANE_TAP_TOKEN": Self.token]) { $1 }
        let clone = project.root + "/first"
        try project.git("clone", "-q", origin, clone)
        let run = try SupervisedRun(["brew"], in: clone, environment: environment)
        run.wait { FileManager.default.fileExists(atPath: marker + ".landed") }
        #expect(FileManager.default.fileExists(atPath: marker + ".landed"), "the tap took the push")
        try run.killEverything()
        _ = FileManager.default.createFile(atPath: marker + ".go", contents: nil)

        let again = try await runInFreshClone(project, origin: origin, environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already holds this formula: nothing sent"), "\(again.all)")
        #expect(try git(project, tap, "rev-list", "--count", "\(base)..main") == "1", "one formula commit on main")
        let formula = try git(project, tap, "show", "main:Formula/demo.rb")
        #expect(formula.contains("sha256 \"\(SHA256.hex(of: Array(Self.archive.utf8)))\""), "\(formula)")
        #expect(!again.all.contains(Self.token))
    }

    /// Pull-request mode, killed after GitHub took the pull request but before it answered: the
    /// fresh clone's run finds the branch and the open pull request and sends nothing.
    @Test func killedWhileGitHubOpensThePullRequestThenAFreshCloneSendsNothing() async throws {
        let killed = try await killedWhileGitHubOpensThePullRequest()
        defer { killed.server.stop(); killed.github.stop() }
        let (project, origin, tap, github, environment) = (killed.project, killed.origin, killed.tap, killed.github, killed.environment)
        let tip = try git(project, tap, "rev-parse", "refs/heads/shiplane/demo-1.2.0")

        let again = try await runInFreshClone(project, origin: origin, environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("already proposes this formula: nothing sent"), "\(again.all)")
        #expect(github.pulls?.opened == 1 && github.pulls?.open.count == 1, "one pull request")
        #expect(try git(project, tap, "rev-parse", "refs/heads/shiplane/demo-1.2.0") == tip, "the branch was not pushed again")
        #expect(try git(project, tap, "rev-list", "--count", "main..refs/heads/shiplane/demo-1.2.0") == "1")
        #expect(github.violations.isEmpty, "\(github.violations)")
        #expect(!again.all.contains(Self.token))
    }

    /// Pull-request mode, killed while GitHub opens the pull request, then run again in the same
    /// clone (the run resumes) with a lane that fails after the formula: the branch and pull
    /// request the re-run adopted are still this run's (its killed attempt pushed that very tip),
    /// so the rollback closes the pull request and deletes the branch.
    @Test func aBranchAdoptedAfterAKillIsDeletedByTheRollback() async throws {
        let killed = try await killedWhileGitHubOpensThePullRequest()
        defer { killed.server.stop(); killed.github.stop() }
        let (project, tap, github, environment, clone) = (killed.project, killed.tap, killed.github, killed.environment, killed.clone)
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/shiplane/demo-1.2.0") != "")

        let again = try await runProgramAsync(shiplaneBinary, ["brew"], in: clone, environment: environment.merging(["FAIL_AFTER": "1"]) { $1 })
        #expect(again.status != 0 && again.all.contains("a later step fails"), "\(again.all)")
        #expect(github.pulls?.opened == 1, "no second pull request")
        #expect(github.pulls?.open.isEmpty == true, "the pull request was closed: \(again.all)")
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/shiplane/demo-1.2.0") == "", "the branch was deleted: \(again.all)")
        #expect(github.violations.isEmpty, "\(github.violations)")
        #expect(!again.all.contains(Self.token))
    }

    /// The killed run's id, from its record in `clone`.
    private func runID(of clone: String) throws -> String {
        let record = try RunStore.forWorkTree(clone).load()
        return try #require(record).id
    }

    /// The same kill, then a new run in a fresh clone (origin holds no record: the killed run never
    /// passed its point of no return) failing after the formula: the branch's tip names the killed
    /// run, not this one, so the branch and its pull request are someone else's and stay.
    @Test func anotherRunsBranchIsKeptByTheRollback() async throws {
        let killed = try await killedWhileGitHubOpensThePullRequest()
        defer { killed.server.stop(); killed.github.stop() }
        let (project, origin, tap, github, environment) = (killed.project, killed.origin, killed.tap, killed.github, killed.environment)
        let tip = try git(project, tap, "rev-parse", "refs/heads/shiplane/demo-1.2.0")
        #expect(try git(project, tap, "log", "-1", "--format=%B", tip).hasSuffix("Shiplane-Run: \(try runID(of: killed.clone))"))

        let again = try await runInFreshClone(project, origin: origin, environment: environment.merging(["FAIL_AFTER": "1"]) { $1 })
        #expect(again.status != 0 && again.all.contains("a later step fails"), "\(again.all)")
        #expect(!again.all.contains("pushed by this run before it was stopped"), "\(again.all)")
        #expect(github.pulls?.opened == 1 && github.pulls?.open.count == 1, "the pull request stays open: \(again.all)")
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/shiplane/demo-1.2.0") == tip, "the branch stays: \(again.all)")
        #expect(github.violations.isEmpty, "\(github.violations)")
    }
}
