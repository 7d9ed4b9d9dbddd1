import Foundation
import Testing
@testable import Shiplane

private let proposalLane = #"""
import Shiplane

struct Brew: Lane {
    func run(_ lane: LaneContext) async throws {
        if lane.environment["PUSH_FIRST"] == "1" {
            try lane.addGitTag("v1.2.0")
            try await lane.push(tags: ["v1.2.0"])
        }
        let server = lane.environment["FORGE_SERVER"]
        let forge: ForgeTarget? = switch lane.environment["FORGE"] {
        case "gitlab": .gitlab(server: server)
        case "gitea": .gitea(server: server)
        default: nil
        }
        try await lane.homebrewFormula("demo", tap: lane.environment["TAP"] ?? "", files: ["dist/demo-1.2.0.tar.gz"], version: "1.2.0",
                                       downloadURL: "https://example.com/releases/download/v1.2.0/{name}", description: "A demo",
                                       homepage: "https://example.com/demo", pullRequest: true, forge: forge)
        if lane.environment["FAIL_AFTER"] == "1" { throw ValidationFailure(problems: ["a later step fails"]) }
    }
}
"""#

/// A protected tap on GitLab (a merge request) and on Gitea (a pull request), through the forge
/// contract's proposal operation, with the built `shiplane`: the first run is SIGKILLed while the
/// forge holds the answer to the proposal's POST, past the run's point of no return; the same
/// command in a fresh clone resumes the run, opens no second proposal and takes the branch as its
/// own by its `Shiplane-Run` trailer; `shiplane rollback` there closes the proposal and deletes
/// the branch (it holds nothing but that commit on main). Every request is checked against the
/// forge's published description (GitLab's openapi_v2.yaml extract, Gitea's swagger).
@Suite("Homebrew tap: merge and pull requests on GitLab and Gitea", .serialized, .offThePool)
struct HomebrewForgeProposalTests {
    static let token = "glpat-TapProposalToken_5b7e21c9d0"
    static let archive = "a demo archive\n"
    static let branch = "shiplane/demo-1.2.0"

    /// The project (lane, archive) pushed to a bare origin; the tap at `acme/homebrew-tap.git`
    /// over `git http-backend`, its main refusing pushes (a protected branch).
    private func setUp() async throws -> (project: TemporaryRepository, origin: String, tap: String, server: GitHTTPServer) {
        let project = try TemporaryRepository()
        try project.write("Lanes/Brew.swift", proposalLane)
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
        let hook = tap + "/hooks/pre-receive"
        try Data("#!/bin/sh\nwhile read old new ref; do [ \"$ref\" = refs/heads/main ] && exit 1; done\nexit 0\n".utf8).write(to: URL(fileURLWithPath: hook))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let server = try await GitHTTPServer.start(projectRoot: served, username: "x-access-token", password: Self.token, environment: project.environment)
        return (project, origin, tap, server)
    }

    /// What `git rev-parse` says of `branch` in the bare tap; nil when it has no such branch.
    private static func tip(_ tap: String, _ root: String, _ environment: [String: String]) -> @Sendable (String) -> String? {
        { branch in
            let found = try? runProgram("/usr/bin/git", ["--git-dir=" + tap, "rev-parse", "--verify", "-q", "refs/heads/" + branch], in: root, environment: environment)
            guard let found, found.status == 0 else { return nil }
            return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    private func git(_ project: TemporaryRepository, _ bare: String, _ arguments: String...) throws -> String {
        let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare] + arguments, in: project.root, environment: project.environment)
        return output.status == 0 ? output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : ""
    }

    /// The kill, the fresh clone's re-run and the rollback, against a forge whose proposals
    /// `opened`/`open` count and whose POST `fault` makes late.
    private func killRerunAndRollBack(
        project: TemporaryRepository, origin: String, tap: String, environment: [String: String],
        opened: () -> Int, open: () -> Int, noun: String
    ) async throws {
        let first = project.root + "/first"
        try project.git("clone", "-q", origin, first)
        let run = try SupervisedRun(["brew"], in: first, environment: environment)
        run.wait { opened() == 1 }
        #expect(opened() == 1, "the forge took the \(noun)")
        try run.killEverything()
        let id = try #require(try RunStore.forWorkTree(first).load()).id
        let message = try git(project, tap, "log", "-1", "--format=%B", "refs/heads/" + Self.branch)
        #expect(message.hasSuffix("Shiplane-Run: \(id)"), "\(message)")
        #expect(try git(project, tap, "rev-list", "--count", "main..refs/heads/" + Self.branch) == "1")
        let tip = try git(project, tap, "rev-parse", "refs/heads/" + Self.branch)

        let fresh = project.root + "/fresh"
        try project.git("clone", "-q", origin, fresh)
        let failing = environment.merging(["FAIL_AFTER": "1"]) { $1 }
        let again = try await runProgramAsync(shiplaneBinary, ["brew"], in: fresh, environment: failing)
        #expect(again.status != 0 && again.all.contains("a later step fails"), "\(again.all)")
        #expect(again.all.contains("\(noun) ") && again.all.contains("already proposes this formula"), "\(again.all)")
        #expect(again.all.contains("pushed by this run before it was stopped"), "\(again.all)")
        #expect(opened() == 1 && open() == 1, "no second \(noun): \(again.all)")
        #expect(try git(project, tap, "rev-parse", "refs/heads/" + Self.branch) == tip, "the branch was not pushed again")
        #expect(try #require(try RunStore.forWorkTree(fresh).load()).id == id, "the fresh clone resumed the killed run")

        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: fresh, environment: failing)
        #expect(open() == 0, "the \(noun) was closed: \(rollback.all)")
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/" + Self.branch) == "", "the branch was deleted: \(rollback.all)")
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/main") != "", "main stays")
        for output in [again.all, rollback.all] { #expect(!output.contains(Self.token)) }
    }

    /// GitLab: one merge request (`POST /projects/:id/merge_requests`), found again by its source
    /// branch, closed by `PUT … state_event=close`.
    @Test func aProtectedTapOnGitLabGetsOneMergeRequestThatTheRollbackCloses() async throws {
        let (project, origin, tap, server) = try await setUp()
        defer { server.stop() }
        let gitlab = FakeGitLab(projectPath: "acme/homebrew-tap", token: Self.token)
        let requests = FakeGitLabMergeRequests(tip: Self.tip(tap, project.root, project.environment))
        gitlab.mergeRequests = requests
        try await gitlab.start()
        defer { gitlab.stop() }
        gitlab.inject(.init(method: "POST", pathContains: "/merge_requests", remaining: 1, action: .answerLate(seconds: 20)))
        let environment = project.environment.merging([
            "TAP": server.url("acme/homebrew-tap.git"), "SHIPLANE_TAP_TOKEN": Self.token, "FORGE": "gitlab", "FORGE_SERVER": gitlab.baseURL,
            "PUSH_FIRST": "1",
        ]) { $1 }
        try await killRerunAndRollBack(project: project, origin: origin, tap: tap, environment: environment,
                                       opened: { requests.opened }, open: { requests.open.count }, noun: "merge request")
        #expect(requests.all.first?.source == Self.branch && requests.all.first?.target == "main" && requests.all.first?.state == "closed")
        #expect(gitlab.log.contains { $0.hasPrefix("PUT ") && $0.contains("/merge_requests/1") }, "\(gitlab.log)")
    }

    /// Gitea: one pull request (`POST /repos/{owner}/{repo}/pulls`), found again among the open
    /// ones by its head, closed by `PATCH … state=closed`.
    @Test func aProtectedTapOnGiteaGetsOnePullRequestThatTheRollbackCloses() async throws {
        let (project, origin, tap, server) = try await setUp()
        defer { server.stop() }
        let gitea = FakeGitea(token: Self.token, repo: "homebrew-tap")
        let pulls = FakeGiteaPulls(tip: Self.tip(tap, project.root, project.environment))
        gitea.pulls = pulls
        try await gitea.start()
        defer { gitea.stop() }
        gitea.inject(.init(method: "POST", pathContains: "/pulls", remaining: 1, action: .answerLate(seconds: 20)))
        let environment = project.environment.merging([
            "TAP": server.url("acme/homebrew-tap.git"), "SHIPLANE_TAP_TOKEN": Self.token, "FORGE": "gitea", "FORGE_SERVER": gitea.baseURL,
            "PUSH_FIRST": "1",
        ]) { $1 }
        try await killRerunAndRollBack(project: project, origin: origin, tap: tap, environment: environment,
                                       opened: { pulls.opened }, open: { pulls.open.count }, noun: "pull request")
        #expect(pulls.all.first?.head == Self.branch && pulls.all.first?.base == "main" && pulls.all.first?.state == "closed")
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }
}
