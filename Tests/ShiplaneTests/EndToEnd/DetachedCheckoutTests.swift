import Foundation
import Testing

/// One CI's checkout: the variables it sets and the branch they name.
struct CICheckout: Sendable, CustomTestStringConvertible {
    var ci: String
    var variables: [String: String]
    var branch: String
    /// Extra arguments for `shiplane bump` (`--branch`).
    var arguments: [String] = []

    var testDescription: String { ci }

    /// Every CI's variables as its documentation describes them for a branch build, with what
    /// each says when the build is not a pull request's (`BUILDKITE_PULL_REQUEST=false`), so a
    /// branch build is never taken for one.
    static let all: [CICheckout] = [
        CICheckout(ci: "GitHub Actions push", variables: [
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main",
            "GITHUB_REF_TYPE": "branch", "GITHUB_HEAD_REF": "", "GITHUB_BASE_REF": "",
        ], branch: "main"),
        CICheckout(ci: "GitLab CI", variables: [
            "GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main",
        ], branch: "main"),
        CICheckout(ci: "Bitbucket Pipelines", variables: ["BITBUCKET_BUILD_NUMBER": "12", "BITBUCKET_BRANCH": "main"], branch: "main"),
        CICheckout(ci: "CircleCI", variables: ["CIRCLECI": "true", "CIRCLE_BRANCH": "main"], branch: "main"),
        CICheckout(ci: "Buildkite", variables: [
            "BUILDKITE": "true", "BUILDKITE_BRANCH": "main", "BUILDKITE_TAG": "", "BUILDKITE_PULL_REQUEST": "false",
        ], branch: "main"),
        CICheckout(ci: "Jenkins multibranch", variables: ["JENKINS_URL": "http://jenkins/", "BRANCH_NAME": "main"], branch: "main"),
        CICheckout(ci: "Jenkins git plugin", variables: ["JENKINS_URL": "http://jenkins/", "GIT_BRANCH": "origin/release/1.x"], branch: "release/1.x"),
        CICheckout(ci: "Azure Pipelines", variables: [
            "TF_BUILD": "True", "BUILD_REASON": "IndividualCI", "BUILD_SOURCEBRANCH": "refs/heads/release/1.x", "BUILD_SOURCEBRANCHNAME": "1.x",
        ], branch: "release/1.x"),
        CICheckout(ci: "Travis CI", variables: [
            "TRAVIS": "true", "TRAVIS_BRANCH": "main", "TRAVIS_PULL_REQUEST": "false", "TRAVIS_PULL_REQUEST_BRANCH": "",
        ], branch: "main"),
        CICheckout(ci: "Woodpecker", variables: [
            "CI": "woodpecker", "CI_SYSTEM_NAME": "woodpecker", "CI_PIPELINE_EVENT": "push", "CI_COMMIT_BRANCH": "main",
        ], branch: "main"),
        CICheckout(ci: "Drone", variables: ["DRONE": "true", "DRONE_BUILD_EVENT": "push", "DRONE_BRANCH": "main"], branch: "main"),
        CICheckout(ci: "--branch", variables: [:], branch: "main", arguments: ["--branch", "main"]),
    ]
}

/// One CI's pull-request (merge-request) pipeline: the variables it sets, as its documentation
/// describes them, and the one Shiplane must name when it refuses to release there.
struct CIPullRequestPipeline: Sendable, CustomTestStringConvertible {
    var ci: String
    var variables: [String: String]
    /// `NAME=value` as the refusal names it.
    var seen: String

    var testDescription: String { ci }

    static let all: [CIPullRequestPipeline] = [
        CIPullRequestPipeline(ci: "GitHub Actions pull_request", variables: [
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REF": "refs/pull/7/merge", "GITHUB_REF_NAME": "7/merge",
            "GITHUB_REF_TYPE": "branch", "GITHUB_HEAD_REF": "feature/login", "GITHUB_BASE_REF": "main",
        ], seen: "GITHUB_EVENT_NAME=pull_request"),
        CIPullRequestPipeline(ci: "GitHub Actions pull_request_target", variables: [
            "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main",
            "GITHUB_REF_TYPE": "branch", "GITHUB_HEAD_REF": "feature/login", "GITHUB_BASE_REF": "main",
        ], seen: "GITHUB_EVENT_NAME=pull_request_target"),
        CIPullRequestPipeline(ci: "GitLab CI merge request", variables: [
            "GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "7", "CI_COMMIT_REF_NAME": "feature/login",
            "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature/login", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        ], seen: "CI_PIPELINE_SOURCE=merge_request_event"),
        CIPullRequestPipeline(ci: "GitLab CI merged results", variables: [
            "GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature/login",
        ], seen: "CI_MERGE_REQUEST_IID=7"),
        CIPullRequestPipeline(ci: "Bitbucket Pipelines", variables: [
            "BITBUCKET_BUILD_NUMBER": "12", "BITBUCKET_BRANCH": "feature/login", "BITBUCKET_PR_ID": "7", "BITBUCKET_PR_DESTINATION_BRANCH": "main",
        ], seen: "BITBUCKET_PR_ID=7"),
        CIPullRequestPipeline(ci: "Buildkite", variables: [
            "BUILDKITE": "true", "BUILDKITE_BRANCH": "feature/login", "BUILDKITE_TAG": "", "BUILDKITE_PULL_REQUEST": "7",
            "BUILDKITE_PULL_REQUEST_BASE_BRANCH": "main",
        ], seen: "BUILDKITE_PULL_REQUEST=7"),
        CIPullRequestPipeline(ci: "CircleCI", variables: [
            "CIRCLECI": "true", "CIRCLE_BRANCH": "feature/login", "CIRCLE_PULL_REQUEST": "https://github.com/acme/rocket/pull/7",
        ], seen: "CIRCLE_PULL_REQUEST=https://github.com/acme/rocket/pull/7"),
        CIPullRequestPipeline(ci: "Jenkins multibranch", variables: [
            "JENKINS_URL": "http://jenkins/", "BRANCH_NAME": "PR-7", "CHANGE_ID": "7", "CHANGE_BRANCH": "feature/login", "CHANGE_TARGET": "main",
        ], seen: "CHANGE_ID=7"),
        CIPullRequestPipeline(ci: "Azure Pipelines", variables: [
            "TF_BUILD": "True", "BUILD_REASON": "PullRequest", "BUILD_SOURCEBRANCH": "refs/pull/7/merge",
            "SYSTEM_PULLREQUEST_PULLREQUESTID": "4711", "SYSTEM_PULLREQUEST_SOURCEBRANCH": "refs/heads/feature/login",
            "SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/main",
        ], seen: "SYSTEM_PULLREQUEST_PULLREQUESTID=4711"),
        CIPullRequestPipeline(ci: "Azure Pipelines, build reason only", variables: [
            "TF_BUILD": "True", "BUILD_REASON": "PullRequest", "BUILD_SOURCEBRANCH": "refs/heads/feature/login",
        ], seen: "BUILD_REASON=PullRequest"),
        CIPullRequestPipeline(ci: "Woodpecker", variables: [
            "CI": "woodpecker", "CI_SYSTEM_NAME": "woodpecker", "CI_PIPELINE_EVENT": "pull_request", "CI_COMMIT_PULL_REQUEST": "7",
            "CI_COMMIT_SOURCE_BRANCH": "feature/login", "CI_COMMIT_TARGET_BRANCH": "main", "CI_COMMIT_BRANCH": "main",
        ], seen: "CI_PIPELINE_EVENT=pull_request"),
        CIPullRequestPipeline(ci: "Travis CI", variables: [
            "TRAVIS": "true", "TRAVIS_BRANCH": "main", "TRAVIS_PULL_REQUEST": "7", "TRAVIS_PULL_REQUEST_BRANCH": "feature/login",
        ], seen: "TRAVIS_PULL_REQUEST=7"),
        CIPullRequestPipeline(ci: "Drone", variables: [
            "DRONE": "true", "DRONE_BUILD_EVENT": "pull_request", "DRONE_PULL_REQUEST": "7", "DRONE_SOURCE_BRANCH": "feature/login",
        ], seen: "DRONE_BUILD_EVENT=pull_request"),
        CIPullRequestPipeline(ci: "Bitrise", variables: [
            "BITRISE_IO": "true", "BITRISE_GIT_BRANCH": "feature/login", "BITRISE_PULL_REQUEST": "7",
        ], seen: "BITRISE_PULL_REQUEST=7"),
    ]
}

/// A repository on `origin` and a CI's checkout of one of its branches: cloned without tags,
/// HEAD detached, no local branch (as GitLab and GitHub check out).
struct CICheckoutRepositories {
    let seed: TemporaryRepository
    var origin: String { seed.root + "/origin.git" }
    var checkout: String { seed.root + "/ci" }

    init(branch: String, cloneArguments: [String] = []) throws {
        seed = try versionedRepository()
        if branch != "main" { try seed.git("checkout", "-q", "-b", branch) }
        try runGit(["clone", "-q", "--bare", seed.path, origin], in: seed.root)
        try runGit(["clone", "-q", "--no-tags"] + cloneArguments + ["--branch", branch, "file://" + origin, checkout], in: seed.root)
        try runGit(["checkout", "-q", "--detach"], in: checkout)
        try runGit(["branch", "-D", "-q", branch], in: checkout)
    }

    /// Runs `git` with the test's isolated environment; throws when it fails.
    @discardableResult
    func runGit(_ arguments: [String], in folder: String) throws -> String {
        let result = try runProgram("/usr/bin/git", arguments, in: folder, environment: seed.environment)
        guard result.status == 0 else { throw TestFailure("git \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    func onOrigin(_ arguments: String...) throws -> String { try runGit(["--git-dir", origin] + arguments, in: seed.root) }
    @discardableResult
    func inCheckout(_ arguments: String...) throws -> String { try runGit(arguments, in: checkout) }

    func shiplane(_ arguments: [String], environment extra: [String: String]) throws -> CommandOutput {
        var environment = seed.environment
        environment["CI"] = "true"
        for (key, value) in extra { environment[key] = value }
        return try runProgram(shiplaneBinary, arguments, in: checkout, environment: environment)
    }

    /// Every ref of both repositories, HEAD, the files and the index: what a refusal must leave.
    func snapshot() throws -> String {
        try [
            onOrigin("show-ref"), inCheckout("show-ref"), inCheckout("rev-parse", "HEAD"),
            inCheckout("status", "--porcelain", "--untracked-files=all"),
            String(decoding: FileManager.default.contents(atPath: checkout + "/VERSION") ?? Data(), as: UTF8.self),
        ].joined(separator: "\n--\n")
    }
}

@Suite("Detached CI checkouts release to the CI's branch, checked with the git command", .offThePool)
struct DetachedCheckoutTests {
    @Test(arguments: CICheckout.all)
    func theReleaseCommitAndTagReachOriginsBranch(_ ci: CICheckout) throws {
        let repos = try CICheckoutRepositories(branch: ci.branch)
        let before = try repos.inCheckout("rev-parse", "HEAD")
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push"] + ci.arguments, environment: ci.variables)
        #expect(result.status == 0, "\(result.all)")
        // HEAD stays detached and moved to the release commit, which sits on the old HEAD.
        let head = try repos.inCheckout("rev-parse", "HEAD")
        #expect(try repos.inCheckout("rev-parse", "--abbrev-ref", "HEAD") == "HEAD")
        #expect(try repos.inCheckout("rev-parse", "HEAD^") == before)
        #expect(try repos.inCheckout("status", "--porcelain") == "")
        // Origin's branch has it, with the bumped files, and the tag names it.
        #expect(try repos.onOrigin("rev-parse", "refs/heads/\(ci.branch)") == head)
        #expect(try repos.onOrigin("show", "\(ci.branch):VERSION") == "1.2.4")
        #expect(try repos.onOrigin("rev-parse", "v1.2.4^{commit}") == head)
        #expect(try repos.onOrigin("log", "-1", "--format=%s", ci.branch) == "chore(release): 1.2.4")
        #expect(result.stdout.contains(ci.arguments.isEmpty ? "for \(ci.branch), read from " : "for \(ci.branch), read from --branch"), "\(result.stdout)")
        try repos.onOrigin("fsck", "--strict", "--no-progress")
        try repos.inCheckout("fsck", "--strict", "--no-progress")
    }

    @Test(arguments: [CICheckout.all[2], CICheckout.all[0]])
    func originsBranchMovedPastHeadIsRefusedAndEverythingStaysAsItWas(_ ci: CICheckout) throws {
        let repos = try CICheckoutRepositories(branch: ci.branch)
        // Someone pushed to the branch after the pipeline's commit was checked out.
        try repos.seed.write("later.txt", "later\n")
        try repos.seed.git("add", "later.txt")
        try repos.seed.git("commit", "-q", "-m", "fix: pushed meanwhile")
        try repos.seed.git("push", "-q", repos.origin, ci.branch)
        let before = try repos.snapshot()
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push"], environment: ci.variables)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("origin's \(ci.branch) has moved past this checkout"), "\(result.all)")
        #expect(result.stderr.contains("nothing was pushed"))
        #expect(try repos.snapshot() == before)
        try repos.inCheckout("fsck", "--strict", "--no-progress")
    }

    /// A GitHub tag workflow names no branch (GITHUB_REF_NAME is the tag); nor does a Jenkins
    /// multibranch tag build (BRANCH_NAME is the tag there), nor a bare clone with no CI at all.
    @Test(arguments: [
        ["GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/tags/v1.2.3", "GITHUB_REF_NAME": "v1.2.3", "GITHUB_REF_TYPE": "tag"],
        ["GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.2.3"],
        ["JENKINS_URL": "http://jenkins/", "BRANCH_NAME": "v1.2.3", "TAG_NAME": "v1.2.3"],
        [:],
    ])
    func noBranchKnownFailsBeforeAnyFileChanges(_ variables: [String: String]) throws {
        let repos = try CICheckoutRepositories(branch: "main")
        let before = try repos.snapshot()
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push"], environment: variables)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("no branch is known"), "\(result.all)")
        #expect(result.stderr.contains("--branch NAME") && result.stderr.contains("CI_COMMIT_BRANCH")
            && result.stderr.contains("GITHUB_REF_NAME") && result.stderr.contains("BUILD_SOURCEBRANCH"), "\(result.all)")
        #expect(!result.stdout.contains("bumpVersion"), "no step ran: \(result.stdout)")
        #expect(try repos.snapshot() == before)
    }

    @Test func aShallowDetachedCloneIsRefusedWithTheFixBeforeAnyFileChanges() throws {
        let repos = try CICheckoutRepositories(branch: "main")
        let shallow = repos.seed.root + "/shallow"
        try repos.runGit(["clone", "-q", "--depth", "1", "--no-tags", "file://" + repos.origin, shallow], in: repos.seed.root)
        try repos.runGit(["checkout", "-q", "--detach"], in: shallow)
        var environment = repos.seed.environment
        environment.merge(["CI": "true", "GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"]) { $1 }
        let result = try runProgram(shiplaneBinary, ["bump", "patch", "--commit", "--tag", "--push"], in: shallow, environment: environment)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("is a shallow clone") && result.stderr.contains("git fetch --unshallow --tags"), "\(result.all)")
        #expect(FileManager.default.contents(atPath: shallow + "/VERSION") == Data("1.2.3\n".utf8))
        #expect(try repos.runGit(["status", "--porcelain"], in: shallow) == "")
    }

    @Test func branchOnAnotherCheckedOutBranchIsRefused() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["bump", "patch", "--commit", "--branch", "release/1.x"])
        #expect(result.status != 0, "\(result.all)")
        #expect(result.stderr.contains("HEAD is on main, but the release was asked to go to release/1.x"), "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    /// Killed right after the detached commit, `shiplane rollback` moves HEAD back to where the
    /// pipeline checked it out (the record says the commit was made on a detached HEAD).
    @Test func rollbackAfterAKillMovesTheDetachedHeadBack() throws {
        let repos = try CICheckoutRepositories(branch: "main")
        let before = try repos.snapshot()
        let variables = ["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"]
        // Effects: VERSION, package.json, the commit (3), the tag (4).
        let killed = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push"], environment: variables.merging(["SHIPLANE_FAULT": "after-effect:3"]) { $1 })
        #expect(killed.status != 0, "\(killed.all)")
        let record = String(decoding: FileManager.default.contents(atPath: repos.checkout + "/.git/shiplane/run.json") ?? Data(), as: UTF8.self)
        #expect(record.contains("git.commit"), "\(record)")
        let rollback = try repos.shiplane(["rollback"], environment: variables)
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(try repos.snapshot() == before)
        #expect(try repos.inCheckout("rev-parse", "--abbrev-ref", "HEAD") == "HEAD")
        try repos.inCheckout("fsck", "--strict", "--no-progress")
    }

    /// GitLab's checkout: `remote.origin.url` carries the job token, and no token variable is set
    /// for Shiplane; the push authenticates with the URL's and the token shows nowhere.
    @Test func aTokenInTheRemoteURLPushesAndIsNeverShown() async throws {
        let repos = try CICheckoutRepositories(branch: "main")
        let served = repos.seed.root + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try repos.runGit(["clone", "-q", "--bare", repos.origin, served + "/remote.git"], in: repos.seed.root)
        let token = "glcbt-" + String(repeating: "Zq8", count: 8)
        let server = try await GitHTTPServer.start(
            projectRoot: served, username: "gitlab-ci-token", password: token, environment: repos.seed.environment)
        defer { server.stop() }
        try repos.inCheckout("remote", "set-url", "origin", server.url("remote.git").replacingOccurrences(of: "http://", with: "http://gitlab-ci-token:\(token)@"))
        var environment = repos.seed.environment
        environment.merge(["CI": "true", "GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main", "CI_JOB_TOKEN": token]) { $1 }
        let result = try await runProgramAsync(
            shiplaneBinary, ["bump", "patch", "--commit", "--tag", "--push"], in: repos.checkout, environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(!result.all.contains(token))
        let head = try repos.inCheckout("rev-parse", "HEAD")
        #expect(try repos.runGit(["--git-dir", served + "/remote.git", "rev-parse", "main"], in: repos.seed.root) == head)
        #expect(try repos.runGit(["--git-dir", served + "/remote.git", "rev-parse", "v1.2.4^{commit}"], in: repos.seed.root) == head)
        try repos.runGit(["--git-dir", served + "/remote.git", "fsck", "--strict", "--no-progress"], in: repos.seed.root)
    }

    /// The dry run names the commit the real run tags: the release commit, not today's HEAD.
    @Test func theDryRunSaysItWouldTagTheReleaseCommit() throws {
        let repos = try CICheckoutRepositories(branch: "main")
        let head = try repos.inCheckout("rev-parse", "--short", "HEAD")
        let before = try repos.snapshot()
        let result = try repos.shiplane(["bump", "patch", "--commit", "--tag", "--push", "--dry-run"], environment: ["GITLAB_CI": "true", "CI_COMMIT_BRANCH": "main"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("would tag the release commit (made on top of \(head)) as v1.2.4"), "\(result.stdout)")
        #expect(!result.stdout.contains("would tag \(head) as"))
        #expect(try repos.snapshot() == before)
    }
}

/// A project whose version lives in tags is released by its tag: `--tag` and `--push` need no
/// `--commit` there, as the README says; where the bump writes files they still do.
@Suite("bump --push and --tag without --commit", .offThePool)
struct TagOnlyPushTests {
    /// On a branch too: a dry run that would commit says the tag goes on the release commit; one
    /// that makes no commit names HEAD, as the real run tags it.
    @Test func theDryRunNamesTheCommitTheRealRunTags() throws {
        let repo = try versionedRepository()
        let head = try repo.git("rev-parse", "--short", "HEAD")
        let committing = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--dry-run"])
        #expect(committing.status == 0, "\(committing.all)")
        #expect(committing.stdout.contains("would tag the release commit (made on top of \(head)) as v1.2.4"), "\(committing.stdout)")
        let tagOnly = try TemporaryRepository()
        try tagOnly.git("tag", "-a", "v0.3.0", "-m", "Release 0.3.0")
        let tagHead = try tagOnly.git("rev-parse", "--short", "HEAD")
        let tagging = try tagOnly.shiplane(["bump", "patch", "--tag", "--dry-run"])
        #expect(tagging.status == 0, "\(tagging.all)")
        #expect(tagging.stdout.contains("would tag \(tagHead) as v0.3.1"), "\(tagging.stdout)")
    }

    @Test func aTagOnlyProjectPushesItsTagWithoutCommit() throws {
        let repo = try TemporaryRepository()
        try repo.write("main.go", "package main\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: first")
        try repo.git("tag", "-a", "v1.2.0", "-m", "Release 1.2.0")
        let origin = repo.root + "/origin.git"
        try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", origin], in: repo.root, environment: repo.environment)
        try repo.git("remote", "add", "origin", origin)
        try repo.git("push", "-q", "origin", "main")
        let result = try repo.shiplane(["bump", "patch", "--push"])
        #expect(result.status == 0, "\(result.all)")
        let tagged = try runProgram("/usr/bin/git", ["--git-dir", origin, "rev-parse", "v1.2.1^{commit}"], in: repo.root, environment: repo.environment)
        #expect(tagged.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try repo.git("rev-parse", "HEAD")), "\(tagged.all)")
    }

    @Test(arguments: ["--push", "--tag"])
    func whereTheBumpWritesFilesItStillNeedsCommit(_ option: String) throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["bump", "patch", option])
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("\(option) needs --commit"), "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("status", "--porcelain") == "")
    }
}
