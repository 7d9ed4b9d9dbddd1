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
        case "bitbucket": .bitbucket()
        default: nil
        }
        try await lane.homebrewFormula("demo", tap: lane.environment["TAP"] ?? "", files: ["dist/demo-1.2.0.tar.gz"], version: "1.2.0",
                                       downloadURL: "https://example.com/releases/download/v1.2.0/{name}", description: "A demo",
                                       homepage: "https://example.com/demo", pullRequest: true, forge: forge)
        if lane.environment["FAIL_AFTER"] == "1" { throw ValidationFailure(problems: ["a later step fails"]) }
    }
}
"""#

/// The forges a tap's proposal goes to, each behind its stand-in checked against the forge's
/// published description (GitHub's rest-api-description extract, GitLab's openapi_v2.yaml
/// extract, Gitea's swagger, Bitbucket Cloud's swagger.v3.json extract).
enum ProposalForge: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case github, gitlab, gitea, bitbucket

    var testDescription: String { rawValue }
}

/// One forge's stand-in, started, as the shared test reads it: what it calls a proposal, the
/// variables that point the lane at it, how many proposals it opened and holds open, the first
/// proposal's branch, base and state, and what its description check found.
private struct ForgeStandIn {
    var noun: String
    var environment: [String: String]
    var opened: @Sendable () -> Int
    var open: @Sendable () -> Int
    var first: @Sendable () -> (branch: String?, base: String?, state: String?)
    var violations: @Sendable () -> [String]
    var stop: @Sendable () -> Void
}

/// A protected tap on GitHub (a pull request), GitLab (a merge request), Gitea and Bitbucket
/// Cloud (pull requests), through the forge contract's proposal operation, with the built `shiplane`: the first
/// run is SIGKILLed while the forge holds the answer to the proposal's POST, past the run's point
/// of no return; the same command in a fresh clone resumes the run, opens no second proposal and
/// takes the branch as its own by its `Shiplane-Run` trailer; `shiplane rollback` there closes the
/// proposal and deletes the branch (it holds nothing but that commit on main). The same test runs
/// for every forge; each forge gives only its stand-in.
@Suite("Homebrew tap: pull and merge requests on GitHub, GitLab, Gitea and Bitbucket", .serialized, .offThePool)
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

    /// Starts `forge`'s stand-in for the tap's repository, with its POST of a proposal answered
    /// late (20 s), so a run can be killed after the forge took it and before it answered.
    private func start(_ forge: ProposalForge, tip: @escaping @Sendable (String) -> String?) async throws -> ForgeStandIn {
        switch forge {
        case .github:
            // No forge: argument: a tap URL on no public host is GitHub's (GITHUB_API_URL).
            let github = FakeGitHub(owner: "acme", repo: "homebrew-tap", token: Self.token)
            let pulls = FakeGitHubPulls(tip: tip)
            github.pulls = pulls
            try await github.start()
            github.inject(.init(method: "POST", pathContains: "/pulls", remaining: 1, action: .answerLate(seconds: 20)))
            return ForgeStandIn(noun: "pull request", environment: ["GITHUB_API_URL": github.baseURL],
                                opened: { pulls.opened }, open: { pulls.open.count },
                                first: { (pulls.all.first?.head, pulls.all.first?.base, pulls.all.first?.state) },
                                violations: { github.violations }, stop: { github.stop() })
        case .gitlab:
            let gitlab = FakeGitLab(projectPath: "acme/homebrew-tap", token: Self.token)
            let requests = FakeGitLabMergeRequests(tip: tip)
            gitlab.mergeRequests = requests
            try await gitlab.start()
            gitlab.inject(.init(method: "POST", pathContains: "/merge_requests", remaining: 1, action: .answerLate(seconds: 20)))
            return ForgeStandIn(noun: "merge request", environment: ["FORGE": "gitlab", "FORGE_SERVER": gitlab.baseURL],
                                opened: { requests.opened }, open: { requests.open.count },
                                first: { (requests.all.first?.source, requests.all.first?.target, requests.all.first?.state) },
                                violations: { gitlab.violations }, stop: { gitlab.stop() })
        case .gitea:
            let gitea = FakeGitea(token: Self.token, repo: "homebrew-tap")
            let pulls = FakeGiteaPulls(tip: tip)
            gitea.pulls = pulls
            try await gitea.start()
            gitea.inject(.init(method: "POST", pathContains: "/pulls", remaining: 1, action: .answerLate(seconds: 20)))
            return ForgeStandIn(noun: "pull request", environment: ["FORGE": "gitea", "FORGE_SERVER": gitea.baseURL],
                                opened: { pulls.opened }, open: { pulls.open.count },
                                first: { (pulls.all.first?.head, pulls.all.first?.base, pulls.all.first?.state) },
                                violations: { gitea.violations }, stop: { gitea.stop() })
        case .bitbucket:
            // The tap's URL names its repository (acme/homebrew-tap); the API is BITBUCKET_API_URL.
            let bitbucket = FakeBitbucket(token: Self.token, slug: "homebrew-tap")
            let pulls = FakeBitbucketPulls(tip: tip)
            bitbucket.pulls = pulls
            try await bitbucket.start()
            bitbucket.inject(.init(method: "POST", pathContains: "/pullrequests", remaining: 1, action: .answerLate(seconds: 20)))
            // Bitbucket's close is a decline: DECLINED is read as the others' closed.
            return ForgeStandIn(noun: "pull request", environment: ["FORGE": "bitbucket", "BITBUCKET_API_URL": bitbucket.apiURL],
                                opened: { pulls.opened }, open: { pulls.open.count },
                                first: { (pulls.all.first?.source, pulls.all.first?.destination, pulls.all.first.map { $0.state == "DECLINED" ? "closed" : $0.state }) },
                                violations: { bitbucket.violations }, stop: { bitbucket.stop() })
        }
    }

    /// The kill, the fresh clone's re-run and the rollback, on each forge: one proposal
    /// (`POST` answered late, the run killed meanwhile), found again by its branch, closed by the
    /// rollback (GitHub and Gitea `PATCH … state=closed`, GitLab `PUT … state_event=close`,
    /// Bitbucket `POST …/decline`).
    @Test(arguments: ProposalForge.allCases)
    func aProtectedTapGetsOneProposalThatAFreshCloneAdoptsAndTheRollbackCloses(_ forge: ProposalForge) async throws {
        let (project, origin, tap, server) = try await setUp()
        defer { server.stop() }
        let standIn = try await start(forge, tip: Self.tip(tap, project.root, project.environment))
        defer { standIn.stop() }
        let noun = standIn.noun
        let environment = project.environment.merging([
            "TAP": server.url("acme/homebrew-tap.git"), "SHIPLANE_TAP_TOKEN": Self.token, "PUSH_FIRST": "1",
        ]) { $1 }.merging(standIn.environment) { $1 }

        let first = project.root + "/first"
        try project.git("clone", "-q", origin, first)
        let run = try SupervisedRun(["brew"], in: first, environment: environment)
        run.wait { standIn.opened() == 1 }
        #expect(standIn.opened() == 1, "the forge took the \(noun)")
        try run.killEverything()
        let id = try #require(try RunStore.forWorkTree(first).load()).id
        #expect(try git(project, origin, "show", "refs/shiplane/run:run.json").contains(id), "origin holds the killed run's record")
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
        #expect(standIn.opened() == 1 && standIn.open() == 1, "no second \(noun): \(again.all)")
        #expect(try git(project, tap, "rev-parse", "refs/heads/" + Self.branch) == tip, "the branch was not pushed again")
        #expect(try #require(try RunStore.forWorkTree(fresh).load()).id == id, "the fresh clone resumed the killed run")

        // Past the point of no return a failing run undoes nothing itself; `shiplane rollback`
        // undoes what it may, and the adopted proposal is now in this clone's record.
        let rollback = try await runProgramAsync(shiplaneBinary, ["rollback"], in: fresh, environment: failing)
        #expect(standIn.open() == 0, "the \(noun) was closed: \(rollback.all)")
        let proposal = standIn.first()
        #expect(proposal.branch == Self.branch && proposal.base == "main" && proposal.state == "closed", "\(proposal)")
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/" + Self.branch) == "", "the branch was deleted: \(rollback.all)")
        #expect(try git(project, tap, "rev-parse", "--verify", "-q", "refs/heads/main") != "", "main stays")
        for output in [again.all, rollback.all] { #expect(!output.contains(Self.token)) }
        #expect(standIn.violations().isEmpty, "\(standIn.violations())")
    }
}
