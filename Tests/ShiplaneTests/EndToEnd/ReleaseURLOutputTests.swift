import Foundation
import Testing

/// A lane publishing v1.4.0 with `call`: the forge-neutral `release`, or the forge's own action
/// (with `more` arguments).
private func publishLane(_ call: String, _ more: String = "") -> String {
    """
    import Shiplane
    struct Publish: Lane {
        func run(_ lane: LaneContext) async throws {
            try await lane.\(call)(tag: "v1.4.0", notes: "notes of 1.4.0", assets: [".build/release/app.tar.gz"]\(more))
        }
    }
    """
}

/// `release_url` comes from the release step's result (`runOutputs(of:)`), for every forge and for
/// `release` as for the forge's own action: in GitHub Actions it reaches `GITHUB_OUTPUT`.
@Suite("release_url from every forge, through release and the forge's own action", .serialized, .offThePool)
struct ReleaseURLOutputTests {
    /// Runs `publish` under `--ci github` and returns what it wrote to `GITHUB_OUTPUT`.
    func outputs(of repo: TemporaryRepository, environment: [String: String]) async throws -> String {
        let file = repo.root + "/github_output"
        var environment = environment
        environment["GITHUB_OUTPUT"] = file
        let result = try await repo.shiplaneAsync(["--ci", "github", "publish"], environment: environment)
        #expect(result.status == 0, "\(result.all)")
        return String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
    }

    @Test(arguments: ["release", "githubRelease"])
    func gitHub(call: String) async throws {
        let github = FakeGitHub()
        try await github.start()
        defer { github.stop() }
        let (repo, _) = try releasableRepository(lane: publishLane(call))
        let written = try await outputs(of: repo, environment: ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token])
        #expect(written == "release_url=https://github.com/acme/rocket/releases/tag/v1.4.0\n", "\(written)")
    }

    @Test(arguments: ["release", "gitlabRelease"])
    func gitLab(call: String) async throws {
        let gitlab = FakeGitLab()
        try await gitlab.start()
        defer { gitlab.stop() }
        gitlab.addTag("v1.4.0")
        let (repo, origin) = try releasableRepository(lane: publishLane(call))
        let url = "https://gitlab.com/acme/rocket.git"
        try repo.git("remote", "set-url", "origin", url)
        try repo.git("config", "url.\(origin.path).insteadOf", url)
        let written = try await outputs(of: repo, environment: ["CI_SERVER_URL": gitlab.baseURL, "GITLAB_TOKEN": gitlab.token])
        #expect(written == "release_url=https://gitlab.example.com/acme/rocket/-/releases/v1.4.0\n", "\(written)")
    }

    @Test(arguments: ["release", "giteaRelease"])
    func gitea(call: String) async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        gitea.addTag("v1.4.0")
        // giteaRelease takes its server as an argument; `release` reads it from .shiplane.yml.
        let more = call == "giteaRelease" ? #", server: lane.environment["GITEA_SERVER"]"# : ""
        let (repo, origin) = try releasableRepository(lane: publishLane(call, more))
        let url = "https://code.corp.example/acme/rocket.git"
        try repo.git("remote", "set-url", "origin", url)
        try repo.git("config", "url.\(origin.path).insteadOf", url)
        try repo.write(".shiplane.yml", "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n")
        try repo.git("add", ".shiplane.yml")
        try repo.git("commit", "-q", "-m", "chore: forge settings")
        let written = try await outputs(of: repo, environment: ["GITEA_TOKEN": gitea.token, "GITEA_SERVER": gitea.baseURL])
        #expect(written == "release_url=https://gitea.example.com/acme/rocket/releases/tag/v1.4.0\n", "\(written)")
    }
}
