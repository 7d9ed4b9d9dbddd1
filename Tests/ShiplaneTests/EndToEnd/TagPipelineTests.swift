import Foundation
import Testing

/// The tag pipeline lane the README shows: publish the pushed tag, no bump, no commit.
let publishTagLane = #"""
import Shiplane

struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        let release = try lane.releaseFromTag()
        let notes = try lane.changelog(since: release.changelogRange)
        try await lane.githubRelease(tag: release.tag, notes: notes)
    }
}
"""#

/// Which tags a CI's checkout has.
enum FetchedTags: Sendable {
    /// Every tag (GitHub's checkout with `fetch-depth: 0`).
    case all
    /// None (`git clone --no-tags`, as most CIs clone).
    case none
    /// Only the pipeline's own tag (GitLab fetches `+refs/tags/NAME:refs/tags/NAME`).
    case thePipelines
}

/// One CI's tag pipeline: the variables it sets for the tag `v1.4.0`, and which tags its checkout
/// has.
struct CITagPipeline: Sendable, CustomTestStringConvertible {
    var ci: String
    var variables: [String: String]
    var fetchesTags = FetchedTags.none

    var testDescription: String { ci }

    static let all: [CITagPipeline] = [
        CITagPipeline(ci: "GitHub Actions", variables: [
            "GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/tags/v1.4.0", "GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF_TYPE": "tag",
        ], fetchesTags: .all),
        CITagPipeline(ci: "GitHub Actions without tags", variables: [
            "GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/tags/v1.4.0", "GITHUB_REF_NAME": "v1.4.0", "GITHUB_REF_TYPE": "tag",
        ]),
        CITagPipeline(ci: "GitLab CI", variables: ["GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.4.0", "CI_COMMIT_REF_NAME": "v1.4.0"], fetchesTags: .thePipelines),
        CITagPipeline(ci: "GitLab CI without tags", variables: ["GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.4.0", "CI_COMMIT_REF_NAME": "v1.4.0"]),
        CITagPipeline(ci: "Bitbucket Pipelines", variables: ["BITBUCKET_BUILD_NUMBER": "12", "BITBUCKET_TAG": "v1.4.0"]),
        CITagPipeline(ci: "CircleCI", variables: ["CIRCLECI": "true", "CIRCLE_TAG": "v1.4.0"]),
        CITagPipeline(ci: "Buildkite", variables: ["BUILDKITE": "true", "BUILDKITE_TAG": "v1.4.0", "BUILDKITE_BRANCH": "v1.4.0"]),
        CITagPipeline(ci: "Azure Pipelines", variables: [
            "TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/tags/v1.4.0", "BUILD_SOURCEBRANCHNAME": "v1.4.0",
        ]),
        CITagPipeline(ci: "Travis CI", variables: ["TRAVIS": "true", "TRAVIS_TAG": "v1.4.0", "TRAVIS_BRANCH": "v1.4.0"]),
        CITagPipeline(ci: "Woodpecker", variables: ["CI_SYSTEM_NAME": "woodpecker", "CI_COMMIT_TAG": "v1.4.0"]),
        CITagPipeline(ci: "Drone", variables: ["DRONE": "true", "DRONE_TAG": "v1.4.0"]),
        // A multibranch tag build names the tag in BRANCH_NAME too: a tag pipeline, not a branch.
        CITagPipeline(ci: "Jenkins multibranch", variables: ["JENKINS_URL": "http://jenkins/", "BRANCH_NAME": "v1.4.0", "TAG_NAME": "v1.4.0"]),
        CITagPipeline(ci: "no CI: the release tag at HEAD", variables: [:], fetchesTags: .all),
    ]
}

/// A project released as v1.3.0 and v1.4.0, with work before, between and after, on an origin
/// that reads as GitHub, and a CI's checkout of one of its commits: detached, no local branch.
struct TagPipelineRepositories {
    let seed: TemporaryRepository
    var origin: String { seed.root + "/origin.git" }
    var checkout: String { seed.root + "/ci" }

    /// - Parameters:
    ///   - at: what the checkout's HEAD is (`v1.4.0`, `main`).
    ///   - fetchesTags: which tags the clone has.
    ///   - extraTags: more tags on main's tip, made before the clone.
    init(at revision: String = "v1.4.0", fetchesTags: FetchedTags = .none, extraTags: [String] = []) throws {
        let seed = try TemporaryRepository()
        try seed.write("Lanes/Publish.swift", publishTagLane)
        try seed.write(".gitignore", ".build/\n")
        try seed.write("VERSION", "1.3.0\n")
        try seed.write("App.xcconfig", "MARKETING_VERSION = 1.3.0\n")
        try seed.git("add", ".")
        try seed.git("commit", "-q", "-m", "feat: launch pad")
        try seed.git("tag", "-a", "v1.3.0", "-m", "Release 1.3.0")
        try seed.write("boosters.txt", "boost\n")
        try seed.git("add", ".")
        try seed.git("commit", "-q", "-m", "feat: rocket boosters")
        try seed.write("VERSION", "1.4.0\n")
        try seed.write("App.xcconfig", "MARKETING_VERSION = 1.4.0\n")
        try seed.git("add", ".")
        try seed.git("commit", "-q", "-m", "fix: fuel leak")
        try seed.git("tag", "-a", "v1.4.0", "-m", "Release 1.4.0")
        try seed.write("later.txt", "later\n")
        try seed.git("add", ".")
        try seed.git("commit", "-q", "-m", "feat: after the tag")
        for tag in extraTags { try seed.git("tag", tag) }
        try self.init(seed: seed, at: revision, fetchesTags: fetchesTags)
    }

    /// A CI's checkout of `revision` of the repository `seed`, through a bare origin.
    init(seed: TemporaryRepository, at revision: String, fetchesTags: FetchedTags) throws {
        self.seed = seed
        let commit = try seed.git("rev-parse", "\(revision)^{commit}")
        try runGit(["clone", "-q", "--bare", seed.path, origin], in: seed.root)
        try runGit(["clone", "-q"] + (fetchesTags == .all ? [] : ["--no-tags"]) + ["file://" + origin, checkout], in: seed.root)
        if fetchesTags == .thePipelines {
            try runGit(["fetch", "-q", "--no-tags", "origin", "+refs/tags/\(revision):refs/tags/\(revision)"], in: checkout)
        }
        try runGit(["checkout", "-q", "--detach", commit], in: checkout)
        try runGit(["branch", "-D", "-q", "main"], in: checkout)
        try runGit(["remote", "set-url", "origin", "https://github.com/acme/rocket.git"], in: checkout)
        try runGit(["config", "url.file://\(origin).insteadOf", "https://github.com/acme/rocket.git"], in: checkout)
    }

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

    func shiplane(_ arguments: [String], environment extra: [String: String]) async throws -> CommandOutput {
        var environment = seed.environment
        environment["CI"] = "true"
        for (key, value) in extra { environment[key] = value }
        return try await runProgramAsync(shiplaneBinary, arguments, in: checkout, environment: environment)
    }

    /// Origin's branches and tags, the checkout's branches, HEAD, files and index: what a tag
    /// pipeline must leave as it was (the checkout's tags may grow by those fetched from origin).
    func snapshot() throws -> String {
        try [
            onOrigin("for-each-ref", "refs/heads", "refs/tags"), inCheckout("for-each-ref", "refs/heads", "refs/remotes"),
            inCheckout("rev-parse", "HEAD"), inCheckout("status", "--porcelain", "--untracked-files=all"),
        ].joined(separator: "\n--\n")
    }
}

/// Serialized: the repositories are made with blocking `git` calls, which would starve the fake
/// GitHub servers of the test threads on a small machine.
@Suite("Tag pipelines publish the pushed tag: no bump, no commit, notes of its range", .serialized, .offThePool)
struct TagPipelineTests {
    @Test(arguments: CITagPipeline.all)
    func theTagsReleaseIsPublishedWithItsNotesOnly(_ ci: CITagPipeline) async throws {
        let repos = try TagPipelineRepositories(fetchesTags: ci.fetchesTags)
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let before = try repos.snapshot()
        let outputs = repos.seed.root + "/github-output"
        let result = try await repos.shiplane(["publish"], environment: ci.variables.merging([
            "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "GITHUB_OUTPUT": outputs,
        ]) { $1 })
        #expect(result.status == 0, "\(result.all)")
        if ci.variables["GITHUB_ACTIONS"] != nil {
            // The action's outputs: the tag's version and the tag, as a bump in CI gives them.
            let written = (try? String(contentsOfFile: outputs, encoding: .utf8)) ?? ""
            #expect(written.contains("version=1.4.0\n") && written.contains("tag=v1.4.0\n"), "\(written)")
        }
        let release = try #require(github.allReleases.first, "\(result.all)")
        #expect(github.allReleases.count == 1)
        #expect(release.tag == "v1.4.0")
        #expect(!release.draft)
        #expect(release.body.contains("rocket boosters") && release.body.contains("fuel leak"), "\(release.body)")
        #expect(!release.body.contains("launch pad") && !release.body.contains("after the tag"), "\(release.body)")
        #expect(result.stdout.contains("v1.4.0 → 1.4.0, from "), "\(result.stdout)")
        #expect(result.stdout.contains("notes since v1.3.0"), "\(result.stdout)")
        // No commit, no tag, no branch moved, here or on origin; the checkout's tags are origin's.
        #expect(try repos.snapshot() == before)
        #expect(try repos.inCheckout("show-ref", "--tags") == repos.onOrigin("show-ref", "--tags"))
        try repos.inCheckout("fsck", "--strict", "--no-progress")
    }

    @Test func aDryRunSaysWhatItFoundAndPublishesNothing() async throws {
        let repos = try TagPipelineRepositories()
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let result = try await repos.shiplane(["publish", "--dry-run"], environment: [
            "GITLAB_CI": "true", "CI_COMMIT_TAG": "v1.4.0", "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token,
        ])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("releaseFromTag"), "\(result.stdout)")
        #expect(result.stdout.contains("v1.4.0 → 1.4.0, from CI_COMMIT_TAG (GitLab CI)"), "\(result.stdout)")
        #expect(result.stdout.contains("would publish v1.4.0"), "\(result.stdout)")
        #expect(github.allReleases.isEmpty)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var at: String
        var tag: String
        var extraTags: [String] = []
        var expected: [String]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Refusal(name: "the tag is not at HEAD", at: "main", tag: "v1.4.0", expected: [
            "the tag v1.4.0 (from CI_COMMIT_TAG (GitLab CI)) points at", "not at HEAD", "git checkout v1.4.0",
        ]),
        Refusal(name: "not a release tag", at: "main", tag: "nightly", extraTags: ["nightly"], expected: [
            "nightly (from CI_COMMIT_TAG (GitLab CI)) is not a release tag", "SemVer versions with an optional v",
        ]),
        Refusal(name: "the version files disagree with the tag", at: "main", tag: "v1.5.0", extraTags: ["v1.5.0"], expected: [
            "the version files do not hold 1.5.0, the version of the tag v1.5.0", "VERSION holds 1.4.0", "App.xcconfig holds 1.4.0",
        ]),
        Refusal(name: "the tag is nowhere", at: "v1.4.0", tag: "v9.9.9", expected: [
            "the tag v9.9.9 (from CI_COMMIT_TAG (GitLab CI)) is not in this repository nor on origin", "git fetch origin tag v9.9.9",
        ]),
    ])
    func aTagThatIsNotThisReleaseIsRefusedBeforeAnyEffect(_ refusal: Refusal) async throws {
        let repos = try TagPipelineRepositories(at: refusal.at, fetchesTags: .all, extraTags: refusal.extraTags)
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let before = try repos.snapshot()
        let tags = try repos.inCheckout("show-ref", "--tags")
        let result = try await repos.shiplane(["publish"], environment: [
            "GITLAB_CI": "true", "CI_COMMIT_TAG": refusal.tag, "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token,
        ])
        #expect(result.status == 4, "\(result.all)")
        for text in refusal.expected { #expect(result.stderr.contains(text), "\(text) in \(result.all)") }
        #expect(!result.stdout.contains("changelog"), "no later step ran: \(result.stdout)")
        #expect(github.allReleases.isEmpty)
        #expect(try repos.snapshot() == before)
        #expect(try repos.inCheckout("show-ref", "--tags") == tags)
    }

    @Test func noTagNamedAndNoneAtHeadIsRefusedWithTheVariablesLookedAt() async throws {
        let repos = try TagPipelineRepositories(at: "main", fetchesTags: .all)
        let before = try repos.snapshot()
        let result = try await repos.shiplane(["publish"], environment: [:])
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("no release tag points at HEAD"), "\(result.all)")
        #expect(result.stderr.contains("CI_COMMIT_TAG") && result.stderr.contains("GITHUB_REF_NAME") && result.stderr.contains("SHIPLANE_TAG"), "\(result.all)")
        #expect(try repos.snapshot() == before)
    }

    /// A monorepo package's tag is published from the package's context: its version file, its
    /// commits; asked of the whole repository, the error names the package.
    @Test func aMonorepoPackagesTagIsPublishedFromItsPackage() async throws {
        let seed = try TemporaryRepository()
        try seed.write(".shiplane.yml", "packages:\n  - { name: core, path: packages/core }\n")
        try seed.write("Lanes/Publish.swift", publishTagLane)
        try seed.write("Lanes/PublishCore.swift", #"""
        import Shiplane

        struct PublishCore: Lane {
            func run(_ lane: LaneContext) async throws {
                let core = try lane.package("core")
                let release = try core.releaseFromTag()
                try await core.githubRelease(tag: release.tag, notes: try core.changelog(since: release.changelogRange))
            }
        }
        """#)
        try seed.write(".gitignore", ".build/\n")
        try seed.write("packages/core/VERSION", "1.0.0\n")
        try seed.git("add", ".")
        try seed.git("commit", "-q", "-m", "feat(core): wings")
        try seed.git("tag", "-a", "core-v1.0.0", "-m", "core 1.0.0")
        try seed.write("README.md", "top\n")
        try seed.git("commit", "-q", "-am", "feat: the top folder only")
        try seed.write("packages/core/VERSION", "1.1.0\n")
        try seed.write("packages/core/tail.txt", "tail\n")
        try seed.git("add", ".")
        try seed.git("commit", "-q", "-m", "fix(core): tail")
        try seed.git("tag", "-a", "core-v1.1.0", "-m", "core 1.1.0")
        let repos = try TagPipelineRepositories(seed: seed, at: "core-v1.1.0", fetchesTags: .thePipelines)
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let variables = ["GITLAB_CI": "true", "CI_COMMIT_TAG": "core-v1.1.0", "GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token]

        let whole = try await repos.shiplane(["publish"], environment: variables)
        #expect(whole.status == 4, "\(whole.all)")
        #expect(whole.stderr.contains("core-v1.1.0 (from CI_COMMIT_TAG (GitLab CI)) is not a release tag"), "\(whole.all)")
        #expect(whole.stderr.contains(#"lane.package("core").releaseFromTag()"#), "\(whole.all)")
        #expect(github.allReleases.isEmpty)

        let before = try repos.snapshot()
        let result = try await repos.shiplane(["publish-core"], environment: variables)
        #expect(result.status == 0, "\(result.all)")
        let release = try #require(github.allReleases.first, "\(result.all)")
        #expect(release.tag == "core-v1.1.0")
        #expect(release.body.contains("tail") && !release.body.contains("wings") && !release.body.contains("top folder"), "\(release.body)")
        #expect(result.stdout.contains("core-v1.1.0 → 1.1.0") && result.stdout.contains("notes since core-v1.0.0"), "\(result.stdout)")
        #expect(try repos.snapshot() == before)
    }
}
