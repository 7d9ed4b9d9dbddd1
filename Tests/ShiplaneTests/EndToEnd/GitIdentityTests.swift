import Foundation
import Testing

/// A fresh CI runner has no git identity: a release commits and tags as the CI's user or
/// `shiplane[bot]`, and says so; outside CI the error gives the exact `git config` lines. The
/// `git` command reads the author, committer and tagger libgit2 wrote.
@Suite("Git identity: a CI job commits without setup; elsewhere the error says what to run", .offThePool)
struct GitIdentityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var variables: [String: String]
        var identity: String
        var source: String
        var testDescription: String { name }
    }

    /// The test environment without any identity: no GIT_AUTHOR_*/GIT_COMMITTER_* and, in the
    /// repository, blank user.name and user.email over whatever the machine configures.
    private func noIdentity(_ repo: TemporaryRepository, _ extra: [String: String]) throws -> [String: String] {
        try repo.git("config", "user.name", "")
        try repo.git("config", "user.email", "")
        var environment = repo.environment
        for name in ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "CI"] {
            environment[name] = nil
        }
        environment.merge(extra) { $1 }
        return environment
    }

    @Test(arguments: [
        Case(name: "GitHub Actions: the actor's noreply address", variables: [
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_ACTOR": "octocat", "GITHUB_ACTOR_ID": "583231",
        ], identity: "octocat <583231+octocat@users.noreply.github.com>", source: "from GITHUB_ACTOR (GitHub Actions)"),
        Case(name: "GitHub Enterprise without an actor id", variables: [
            "GITHUB_ACTIONS": "true", "GITHUB_ACTOR": "hubot", "GITHUB_SERVER_URL": "https://git.acme.example",
        ], identity: "hubot <hubot@users.noreply.git.acme.example>", source: "from GITHUB_ACTOR (GitHub Actions)"),
        Case(name: "GitLab CI: the pipeline's user", variables: [
            "CI": "true", "GITLAB_CI": "true", "GITLAB_USER_NAME": "Ada Lovelace", "GITLAB_USER_EMAIL": "ada@example.com",
        ], identity: "Ada Lovelace <ada@example.com>", source: "from GITLAB_USER_NAME and GITLAB_USER_EMAIL (GitLab CI)"),
        Case(name: "any CI: shiplane[bot]", variables: ["CI": "true"],
             identity: "shiplane[bot] <shiplane-bot@noreply.invalid>", source: "from Shiplane's default in CI (CI=true)"),
        Case(name: "Jenkins sets no CI variable: its own", variables: ["JENKINS_URL": "http://jenkins/", "BRANCH_NAME": "main"],
             identity: "shiplane[bot] <shiplane-bot@noreply.invalid>", source: "from Shiplane's default in CI (Jenkins)"),
        Case(name: "chosen with SHIPLANE_GIT_NAME and SHIPLANE_GIT_EMAIL", variables: [
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_ACTOR": "octocat",
            "SHIPLANE_GIT_NAME": "Release Bot", "SHIPLANE_GIT_EMAIL": "release-bot@acme.example",
        ], identity: "Release Bot <release-bot@acme.example>", source: "from SHIPLANE_GIT_NAME and SHIPLANE_GIT_EMAIL"),
    ])
    func aCIJobCommitsAndTagsAsTheCIsIdentityAndSaysSo(_ ci: Case) throws {
        let repo = try versionedRepository()
        let environment = try noIdentity(repo, ci.variables)
        let result = try runProgram(shiplaneBinary, ["bump", "patch", "--commit", "--tag"], in: repo.path, environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("log", "-1", "--format=%an <%ae>") == ci.identity)
        #expect(try repo.git("log", "-1", "--format=%cn <%ce>") == ci.identity)
        #expect(try repo.git("for-each-ref", "--format=%(taggername) %(taggeremail)", "refs/tags/v1.2.4") == ci.identity)
        #expect(result.stdout.contains("no git identity is configured: the commit is by \(ci.identity), \(ci.source)"), "\(result.stdout)")
        #expect(result.stdout.contains("no git identity is configured: the tag is by \(ci.identity)"), "\(result.stdout)")
        try repo.git("fsck", "--strict", "--no-progress")
    }

    /// An identity that is configured wins, in CI too, and nothing is said about it.
    @Test func aConfiguredIdentityWinsInCI() throws {
        let repo = try versionedRepository()
        var environment = try noIdentity(repo, ["CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_ACTOR": "octocat"])
        try repo.git("config", "user.name", "Grace Hopper")
        try repo.git("config", "user.email", "grace@example.com")
        environment["GIT_COMMITTER_NAME"] = "Committer Env"
        environment["GIT_COMMITTER_EMAIL"] = "committer-env@example.com"
        let result = try runProgram(shiplaneBinary, ["bump", "patch", "--commit"], in: repo.path, environment: environment)
        #expect(result.status == 0, "\(result.all)")
        #expect(try repo.git("log", "-1", "--format=%an <%ae>|%cn <%ce>") == "Grace Hopper <grace@example.com>|Committer Env <committer-env@example.com>")
        #expect(!result.stdout.contains("no git identity"), "\(result.stdout)")
    }

    /// Outside CI the missing identity is an error (exit 4) that names the exact lines to run,
    /// only those missing, and the bump is rolled back.
    @Test(arguments: [
        (nil as String?, [#"git config user.name "Your Name""#, #"git config user.email "you@example.com""#], "user.name and user.email are not set"),
        ("Grace Hopper" as String?, [#"git config user.email "you@example.com""#], "user.email is not set"),
    ])
    func outsideCIItIsAnErrorWithTheGitConfigLines(name: String?, lines: [String], message: String) throws {
        let repo = try versionedRepository()
        let environment = try noIdentity(repo, [:])
        if let name { try repo.git("config", "user.name", name) }
        let head = try repo.git("rev-parse", "HEAD")
        let result = try runProgram(shiplaneBinary, ["bump", "patch", "--commit"], in: repo.path, environment: environment)
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderr.contains("no git identity to commit with: \(message)"), "\(result.all)")
        for line in lines { #expect(result.stderr.contains("run: " + line), "\(line) in \(result.all)") }
        if name != nil { #expect(!result.stderr.contains("git config user.name"), "\(result.all)") }
        #expect(result.stderr.contains("add --global for every repository"), "\(result.all)")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(repo.read("VERSION") == "1.2.3\n", "rolled back")
        #expect(try repo.git("status", "--porcelain") == "")
    }
}
