import Foundation
import Testing

/// A repository with version files that agree, committed, with a release tag on the first commit.
func versionedRepository(version: String = "1.2.3", tagged: Bool = true) throws -> TemporaryRepository {
    let repo = try TemporaryRepository()
    try repo.write("VERSION", "\(version)\n")
    try repo.write("package.json", "{\n  \"name\": \"app\",\n  \"version\": \"\(version)\",\n  \"dependencies\": { \"left-pad\": { \"version\": \"1.0.0\" } }\n}\n")
    try repo.git("add", ".")
    try repo.git("commit", "-q", "-m", "chore: version files")
    if tagged { try repo.git("tag", "-a", "v\(version)", "-m", "Release \(version)") }
    return repo
}

@Suite("shiplane version and bump, checked with the git command", .offThePool)
struct BumpCommandTests {
    @Test func versionShowsEverySourceAndTheLastTag() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["version"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.hasPrefix("1.2.3\n"))
        #expect(result.stdout.contains("VERSION"))
        #expect(result.stdout.contains("package.json"))
        #expect(result.stdout.contains("v1.2.3"))
        let json = try repo.shiplane(["version", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? String == "1.2.3")
        #expect(object["lastReleaseTag"] as? String == "v1.2.3")
    }

    @Test func bumpCommitTagWritesWhatGitExpects() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["bump", "minor", "--commit", "--tag"])
        #expect(result.status == 0, "\(result.all)")
        #expect(repo.read("VERSION") == "1.3.0\n")
        #expect(repo.read("package.json")?.contains("\"version\": \"1.3.0\"") == true)
        #expect(repo.read("package.json")?.contains("\"version\": \"1.0.0\"") == true, "nested versions are untouched")
        try repo.git("fsck", "--strict")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore(release): 1.3.0")
        #expect(try repo.git("log", "-1", "--format=%an <%ae>") == "Test Author <author@example.com>")
        #expect(try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n").sorted() == ["VERSION", "package.json"])
        #expect(try repo.git("status", "--porcelain") == "")
        let tag = try repo.git("cat-file", "-p", "v1.3.0")
        #expect(tag.contains("type commit"))
        #expect(tag.contains("tagger Test Committer <committer@example.com>"))
        #expect(tag.contains("Release 1.3.0"))
        #expect(try repo.git("rev-parse", "v1.3.0^{commit}") == repo.git("rev-parse", "HEAD"))
    }

    @Test func autoFollowsConventionalCommits() throws {
        let repo = try versionedRepository()
        try repo.write("a.txt", "a")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "fix: a bug")
        try repo.write("b.txt", "b")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat(api): a feature")
        let result = try repo.shiplane(["bump", "auto"])
        #expect(result.status == 0, "\(result.all)")
        #expect(repo.read("VERSION") == "1.3.0\n")
    }

    @Test func autoWithNothingReleasableChangesNothing() throws {
        let repo = try versionedRepository()
        try repo.write("a.txt", "a")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "docs: words")
        let result = try repo.shiplane(["bump", "auto"])
        #expect(result.status == 5, "\(result.all)")
        #expect(result.stderr.contains("no releasable commits since v1.2.3"))
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func breakingChangeBeforeOneBumpsMinor() throws {
        let repo = try versionedRepository(version: "0.4.1")
        try repo.write("a.txt", "a")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat!: drop the old API")
        #expect(try repo.shiplane(["bump", "auto"]).status == 0)
        #expect(repo.read("VERSION") == "0.5.0\n")
    }

    @Test func prereleaseStartsAndAdvances() throws {
        let repo = try versionedRepository(version: "1.3.0-beta.1")
        #expect(try repo.shiplane(["bump", "pre", "beta"]).status == 0)
        #expect(repo.read("VERSION") == "1.3.0-beta.2\n")
        #expect(try repo.shiplane(["bump", "release"]).status == 0)
        #expect(repo.read("VERSION") == "1.3.0\n")
    }

    /// As commitizen: the prerelease's level comes from the commits, its counter starts at 0.
    @Test func aPrereleaseAfterAFeatureIsTheNextMinorsBetaZero() throws {
        let repo = try versionedRepository(version: "2.13.1")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: wings")
        let first = try repo.shiplane(["bump", "pre", "beta", "--commit", "--tag"])
        #expect(first.status == 0, "\(first.all)")
        #expect(repo.read("VERSION") == "2.14.0-beta.0\n")
        #expect(try repo.shiplane(["bump", "pre", "beta"]).status == 0)
        #expect(repo.read("VERSION") == "2.14.0-beta.1\n")
    }

    @Test func dryRunWritesNothing() throws {
        let repo = try versionedRepository()
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["bump", "major", "--commit", "--tag", "--dry-run"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("1.2.3 → 2.0.0"))
        #expect(result.stdout.contains("would commit VERSION, package.json: chore(release): 2.0.0"))
        #expect(result.stdout.contains("would tag"))
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list") == "v1.2.3")
    }

    @Test func anExistingTagIsRefusedAndEverythingRollsBack() throws {
        let repo = try versionedRepository()
        try repo.git("tag", "v1.2.4")
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("tag v1.2.4 exists"))
        #expect(repo.read("VERSION") == "1.2.3\n", "the version file was restored")
        #expect(try repo.git("rev-parse", "HEAD") == head, "the bump commit was dropped")
        #expect(try repo.git("status", "--porcelain") == "")
    }

    @Test func otherDirtyFilesAreRefusedForTheCommit() throws {
        let repo = try versionedRepository()
        try repo.write("notes.txt", "unrelated")
        let result = try repo.shiplane(["bump", "patch", "--commit"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("other files are dirty"))
        #expect(result.stderr.contains("notes.txt"))
        #expect(result.stderr.contains("pass --allow-dirty") && !result.stderr.contains("allowOtherChanges"),
                "the hint names the command's flag, not the lane parameter: \(result.stderr)")
        #expect(!result.all.contains("ShiplaneCLI/") && !result.all.contains("BumpCommand"), "no Shiplane source in any message")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func aDryRunStopsWhereTheRealRunWouldOnOtherDirtyFiles() throws {
        let repo = try versionedRepository()
        try repo.write("notes.txt", "unrelated")
        let result = try repo.shiplane(["bump", "patch", "--commit", "--dry-run"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("other files are dirty"))
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func sourcesThatDisagreeAreListed() throws {
        let repo = try versionedRepository()
        try repo.write("VERSION", "1.2.4\n")
        let result = try repo.shiplane(["bump", "patch"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("VERSION"))
        #expect(result.stderr.contains("package.json"))
        #expect(result.stderr.contains("1.2.4"))
        #expect(repo.read("package.json")?.contains("1.2.3") == true)
    }

    @Test func noVersionFileAndNoCommitSaysWhatWasLookedFor() throws {
        let repo = try TemporaryRepository(commit: false)
        let result = try repo.shiplane(["version"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("package.json"))
        #expect(result.stderr.contains("Cargo.toml"))
    }

    @Test(arguments: ["1.2", "sideways", "v1.02.3"])
    func badLevelsAreUsageErrors(level: String) throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["bump", level])
        #expect(result.status == 2, "\(result.all)")
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func tagWithoutCommitIsRefused() throws {
        let repo = try versionedRepository()
        let result = try repo.shiplane(["bump", "patch", "--tag"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--tag needs --commit"))
    }

    @Test func commitOnADetachedHeadIsRefused() throws {
        let repo = try versionedRepository()
        try repo.git("checkout", "-q", "--detach")
        let result = try repo.shiplane(["bump", "patch", "--commit"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("detached"))
        #expect(repo.read("VERSION") == "1.2.3\n")
    }

    @Test func pushSendsTheBranchAndOnlyTheNewTag() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main")
        try repo.git("tag", "unrelated-local-tag")
        let result = try repo.shiplane(["bump", "minor", "--commit", "--tag", "--push"])
        #expect(result.status == 0, "\(result.all)")
        let remoteTags = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "tag", "--list"], in: origin.root, environment: origin.environment).stdout
        #expect(remoteTags == "v1.3.0\n")
        let remoteHead = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "rev-parse", "main"], in: origin.root, environment: origin.environment).stdout
        #expect(remoteHead.trimmingCharacters(in: .whitespacesAndNewlines) == (try repo.git("rev-parse", "HEAD")))
    }

    @Test func buildNumbersIncrementAndSet() throws {
        let repo = try TemporaryRepository()
        try repo.write("App.xcconfig", "MARKETING_VERSION = 2.0.0\nCURRENT_PROJECT_VERSION = 41\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "init")
        #expect(try repo.shiplane(["bump", "patch", "--build"]).status == 0)
        #expect(repo.read("App.xcconfig") == "MARKETING_VERSION = 2.0.1\nCURRENT_PROJECT_VERSION = 42\n")
        #expect(try repo.shiplane(["bump", "patch", "--build", "100"]).status == 0)
        #expect(repo.read("App.xcconfig") == "MARKETING_VERSION = 2.0.2\nCURRENT_PROJECT_VERSION = 100\n")
    }
}

@Suite("shiplane bump --push over smart HTTP with basic auth", .serialized, .offThePool)
struct BumpPushOverHTTPTests {
    static let token = "ghp_" + String(repeating: "Q7x", count: 12)

    func setUp() async throws -> (repo: TemporaryRepository, bare: String, server: GitHTTPServer) {
        let repo = try versionedRepository()
        let root = repo.root + "/served"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try runProgram("/usr/bin/git", ["init", "-q", "--bare", root + "/remote.git"], in: root, environment: repo.environment)
        let server = try await GitHTTPServer.start(projectRoot: root, username: "x-access-token", password: Self.token, environment: repo.environment)
        try repo.git("remote", "add", "origin", server.url("remote.git"))
        return (repo, root + "/remote.git", server)
    }

    @Test func theRightTokenPushesTheBranchAndTheTag() async throws {
        let (repo, bare, server) = try await setUp()
        defer { server.stop() }
        let result = try await repo.shiplaneAsync(["bump", "patch", "--commit", "--tag", "--push"], environment: ["SHIPLANE_GIT_TOKEN": Self.token])
        #expect(result.status == 0, "\(result.all)")
        let tags = try runProgram("/usr/bin/git", ["--git-dir", bare, "tag", "--list"], in: repo.root, environment: repo.environment).stdout
        #expect(tags == "v1.2.4\n")
        #expect(!result.all.contains(Self.token))
    }

    @Test func aWrongTokenFailsFastAndRollsBack() async throws {
        let (repo, bare, server) = try await setUp()
        defer { server.stop() }
        let head = try repo.git("rev-parse", "HEAD")
        let wrong = "ghp_" + String(repeating: "W0r", count: 12)
        let result = try await repo.shiplaneAsync(["bump", "patch", "--commit", "--tag", "--push"], environment: ["SHIPLANE_GIT_TOKEN": wrong])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.lowercased().contains("credentials") || result.stderr.lowercased().contains("authentication"))
        #expect(server.requestCount <= 6, "no endless credential loop")
        #expect(!result.all.contains(wrong))
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list") == "v1.2.3")
        let tags = try runProgram("/usr/bin/git", ["--git-dir", bare, "tag", "--list"], in: repo.root, environment: repo.environment).stdout
        #expect(tags.isEmpty)
    }
}
