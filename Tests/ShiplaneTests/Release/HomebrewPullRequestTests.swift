import Foundation
import Testing
@testable import Shiplane

/// `HomebrewTapLane` in pull-request mode: the formula for `TAP`'s protected main goes to a branch
/// and a pull request on the GitHub stand-in (`GITHUB_API_URL`); `FAIL_COMMAND` runs in a shell
/// after it and fails the lane (what it does first is the test's interference).
struct HomebrewPullRequestLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = lane.environment["VERSION"] ?? "1.2.0"
        try await lane.homebrewFormula(
            "shiplane-demo", tap: lane.environment["TAP"] ?? "", files: HomebrewTapTests.artifacts(version: version), version: version,
            downloadURL: "https://example.com/releases/download/v\(version)/{name}",
            description: "Ships demo releases", homepage: "https://example.com/shiplane-demo", license: "MIT", binary: "demo",
            pullRequest: true)
        if let command = lane.environment["FAIL_COMMAND"] { try await lane.sh("sh", "-c", command + "; exit 1") }
    }
}

/// A protected tap: the formula on a branch and a pull request on the GitHub stand-in. In the
/// tap suite (serialized), whose tests check that no temporary clone is left behind.
extension HomebrewTapTests {
    static let pullToken = "ghp_TapPullToken_4d2e90aa1c"
    static let pullBranch = "shiplane/shiplane-demo-1.2.0"

    /// A tap at `acme/homebrew-tap.git` whose main refuses pushes (a protected branch, as a
    /// pre-receive hook), served by `git http-backend`; the GitHub stand-in for `acme/homebrew-tap`
    /// with its pulls API reading the tap's branches with the `git` command.
    private func pullSetUp() async throws -> (work: TemporaryRepository, bare: String, server: GitHTTPServer, github: FakeGitHub) {
        let work = try TemporaryRepository()
        let root = work.root + "/served"
        let bare = root + "/acme/homebrew-tap.git"
        try FileManager.default.createDirectory(atPath: root + "/acme", withIntermediateDirectories: true)
        try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", bare], in: root, environment: work.environment)
        try work.git("push", "-q", bare, "main")
        let hook = bare + "/hooks/pre-receive"
        let script = "#!/bin/sh\nwhile read old new ref; do\n  if [ \"$ref\" = refs/heads/main ]; then echo 'main is protected: open a pull request' >&2; exit 1; fi\ndone\n"
        try Data(script.utf8).write(to: URL(fileURLWithPath: hook))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let server = try await GitHTTPServer.start(projectRoot: root, username: "x-access-token", password: Self.pullToken, environment: work.environment)
        let github = FakeGitHub(owner: "acme", repo: "homebrew-tap", token: Self.pullToken)
        let environment = work.environment
        github.pulls = FakeGitHubPulls(tip: { branch in
            let found = try? runProgram("/usr/bin/git", ["--git-dir=" + bare, "rev-parse", "--verify", "-q", "refs/heads/" + branch], in: root, environment: environment)
            guard let found, found.status == 0 else { return nil }
            return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        })
        try await github.start()
        return (work, bare, server, github)
    }

    private func pullRun(_ server: GitHTTPServer, _ github: FakeGitHub, _ work: TemporaryRepository, extra: [String: String] = [:],
                     dryRun: Bool = false) async -> LaneRunResult {
        var variables = [
            "TAP": server.url("acme/homebrew-tap.git"), "SHIPLANE_TAP_TOKEN": Self.pullToken, "GITHUB_API_URL": github.baseURL,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "",
            "GIT_AUTHOR_NAME": "Release Bot", "GIT_AUTHOR_EMAIL": "bot@example.com", "GIT_COMMITTER_NAME": "Release Bot",
            "GIT_COMMITTER_EMAIL": "bot@example.com",
        ]
        for (key, value) in extra { variables[key] = value }
        let folder = work.root + "/project"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables),
                                        reporter: RecordingReporter(), isDryRun: dryRun))
        return await LaneRunner().run(HomebrewPullRequestLane(), in: context)
    }

    private func bareGit(_ bare: String, _ work: TemporaryRepository, _ arguments: String...) throws -> (status: Int32, out: String) {
        let output = try runProgram("/usr/bin/git", ["--git-dir=" + bare] + arguments, in: work.root, environment: work.environment)
        return (output.status, output.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func stepNote(_ result: LaneRunResult) -> String { result.steps.first { $0.name == "homebrewFormula" }?.note ?? "" }

    /// The dry run reaches the tap and GitHub and sends nothing; the run pushes the branch (main
    /// untouched) and opens one pull request whose formula Ruby reads back; the re-run finds the
    /// open pull request and sends nothing; once merged, the re-run finds main holding it.
    @Test func theFormulaGoesToABranchAndOnePullRequestAndReRunsSendNothing() async throws {
        let (work, bare, server, github) = try await pullSetUp()
        defer { server.stop(); github.stop() }
        let main = try bareGit(bare, work, "rev-parse", "main").out

        let dry = await pullRun(server, github, work, dryRun: true)
        #expect(dry.succeeded, "\(dry.failure.map { allText(of: $0) } ?? "")")
        #expect(stepNote(dry).contains("would commit Formula/shiplane-demo.rb on a new branch \(Self.pullBranch)"), "\(stepNote(dry))")
        #expect(try bareGit(bare, work, "rev-parse", "--verify", "-q", "refs/heads/" + Self.pullBranch).status != 0, "a dry run pushes nothing")
        #expect(github.pulls?.all.isEmpty == true)

        let result = await pullRun(server, github, work)
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        let pulls = try #require(github.pulls)
        #expect(pulls.opened == 1)
        let pull = try #require(pulls.open.first)
        #expect(pull.head == Self.pullBranch && pull.base == "main" && pull.title == "shiplane-demo 1.2.0")
        let tip = try bareGit(bare, work, "rev-parse", "refs/heads/" + Self.pullBranch).out
        #expect(pull.sha == tip)
        #expect(try bareGit(bare, work, "rev-parse", "main").out == main, "main is protected and untouched")
        #expect(try bareGit(bare, work, "rev-parse", Self.pullBranch + "^").out == main, "the branch is one commit on main")
        let formula = try bareGit(bare, work, "show", "\(Self.pullBranch):Formula/shiplane-demo.rb").out + "\n"
        #expect(try Self.readWithRuby(formula)["urls"] as? [String: String] == Self.expectedPairs(version: "1.2.0"))
        #expect(stepNote(result).contains("opened pull request #\(pull.number)"), "\(stepNote(result))")
        #expect(github.violations.isEmpty, "\(github.violations)")
        #expect(Set(github.ledger.operationsSeen.keys).isSuperset(of: ["GET /repos/{owner}/{repo}/pulls", "POST /repos/{owner}/{repo}/pulls"]),
                "the pulls requests were checked against the description: \(github.ledger.operationsSeen.keys.sorted())")

        let again = await pullRun(server, github, work)
        #expect(again.succeeded, "\(again.failure.map { allText(of: $0) } ?? "")")
        #expect(stepNote(again).contains("pull request #\(pull.number)") && stepNote(again).contains("already proposes this formula: nothing sent"), "\(stepNote(again))")
        #expect(pulls.opened == 1 && pulls.open.count == 1)
        #expect(try bareGit(bare, work, "rev-parse", "refs/heads/" + Self.pullBranch).out == tip, "nothing pushed")

        // Someone merges it: main holds the formula, and the re-run sends nothing.
        #expect(try bareGit(bare, work, "update-ref", "refs/heads/main", tip).status == 0)
        pulls.merge(pull.number)
        let merged = await pullRun(server, github, work)
        #expect(merged.succeeded)
        #expect(stepNote(merged).contains("already holds this formula: nothing sent"), "\(stepNote(merged))")
        #expect(pulls.opened == 1)
        #expect(leftoverClones().isEmpty)
        #expect(!stepNote(merged).contains(Self.pullToken) && !stepNote(result).contains(Self.pullToken) && !stepNote(again).contains(Self.pullToken))
    }

    /// A lane that fails after the pull request was opened closes it and deletes its branch.
    @Test func aFailedLaneClosesThePullRequestAndDeletesTheBranch() async throws {
        let (work, bare, server, github) = try await pullSetUp()
        defer { server.stop(); github.stop() }
        let result = await pullRun(server, github, work, extra: ["FAIL_COMMAND": "true"])
        #expect(!result.succeeded)
        let pulls = try #require(github.pulls)
        #expect(pulls.opened == 1)
        #expect(pulls.all.first?.state == "closed", "the pull request is closed")
        #expect(try bareGit(bare, work, "rev-parse", "--verify", "-q", "refs/heads/" + Self.pullBranch).status != 0, "the branch is deleted")
        #expect(github.violations.isEmpty, "\(github.violations)")
        #expect(leftoverClones().isEmpty)
    }

    /// Compare and swap: someone pushed to the branch after Shiplane (here, before the lane
    /// fails): the rollback keeps the pull request open and the branch, and says why.
    @Test func aBranchThatMovedOnIsKeptWithThePullRequest() async throws {
        let (work, bare, server, github) = try await pullSetUp()
        defer { server.stop(); github.stop() }
        // The lane's failing command moves the branch to a commit on top of Shiplane's.
        let move = "t=$(git --git-dir=\(bare) commit-tree -p refs/heads/\(Self.pullBranch) -m touch-up refs/heads/\(Self.pullBranch)^{tree}) && git --git-dir=\(bare) update-ref refs/heads/\(Self.pullBranch) $t"
        let result = await pullRun(server, github, work, extra: ["FAIL_COMMAND": move])
        #expect(!result.succeeded)
        let pulls = try #require(github.pulls)
        #expect(pulls.open.count == 1, "kept open: it has commits after Shiplane's")
        #expect(try bareGit(bare, work, "log", "-1", "--format=%s", "refs/heads/" + Self.pullBranch).out == "touch-up", "the branch is kept")
        let text = allText(of: try #require(result.failure))
        #expect(text.contains("has commits after Shiplane's"), "\(text)")
        #expect(leftoverClones().isEmpty)
    }
}
