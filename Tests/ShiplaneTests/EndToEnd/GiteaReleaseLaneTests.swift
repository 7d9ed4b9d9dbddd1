import Foundation
import Testing

private let forgeNeutralLane = #"""
import Shiplane
struct Publish: Lane {
    func run(_ lane: LaneContext) async throws {
        try await lane.release(tag: "v1.4.0", notes: "notes of 1.4.0", assets: [".build/release/app.tar.gz"], prerelease: true)
    }
}
"""#

@Suite("Gitea releases from a lane: release on a self-hosted Gitea declared in .shiplane.yml", .serialized, .offThePool)
struct GiteaReleaseLaneTests {
    private func repository(_ gitea: FakeGitea) throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
        let (repo, origin) = try releasableRepository(lane: forgeNeutralLane)
        let url = "https://code.corp.example/acme/rocket.git"
        try repo.git("remote", "set-url", "origin", url)
        try repo.git("config", "url.\(origin.path).insteadOf", url)
        try repo.write(".shiplane.yml", "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n")
        try repo.git("add", ".shiplane.yml")
        try repo.git("commit", "-q", "-m", "chore: forge settings")
        return (repo, origin)
    }

    @Test func releasePublishesOnTheDeclaredGitea() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        gitea.addTag("v1.4.0")
        let (repo, _) = try repository(gitea)
        let result = try await repo.shiplaneAsync(["publish"], environment: ["GITEA_TOKEN": gitea.token])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.all.contains("releasing on Gitea (from code.corp.example in forge.hosts of .shiplane.yml)"), "\(result.all)")
        let release = try #require(gitea.allReleases.first)
        #expect(release.tag == "v1.4.0" && !release.draft && release.prerelease && release.body == "notes of 1.4.0")
        #expect(gitea.allAttachments.map(\.name) == ["app.tar.gz"])
        #expect(!result.all.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }

    /// The lane program killed while Gitea has made the draft but not yet answered: the record
    /// holds the release without its id, so the supervisor finds the draft by its tag and deletes it.
    @Test func aDraftWhoseAnswerNeverCameIsFoundByItsTagAndDeletedAfterAKill() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        gitea.addTag("v1.4.0")
        gitea.inject(.init(method: "POST", pathContains: "/releases", remaining: 1, action: .answerLate(seconds: 60)))
        let (repo, _) = try repository(gitea)
        var environment = repo.environment
        environment["GITEA_TOKEN"] = gitea.token
        let run = try SupervisedRun(["publish"], in: repo.path, environment: environment)
        run.wait { !gitea.allReleases.isEmpty }
        #expect(gitea.allReleases.map(\.draft) == [true], "the create call landed: \(gitea.log)")
        #expect(try run.killLaneProgram())
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        #expect(gitea.allReleases.isEmpty, "found by its tag and deleted: \(gitea.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(all)")
        #expect(!all.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }

    @Test func aRefusedAttachmentRollsTheDraftBack() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        gitea.addTag("v1.4.0")
        gitea.inject(.init(method: "POST", pathContains: "?name=app.tar.gz", remaining: 5,
                           action: .status(400, headers: [:], body: #"{"message":"attachment too large","url":"x"}"#, contentType: "application/json")))
        let (repo, _) = try repository(gitea)
        let result = try await repo.shiplaneAsync(["publish"], environment: ["GITEA_TOKEN": gitea.token])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("attachment too large"), "\(result.all)")
        #expect(gitea.allReleases.isEmpty, "the draft was deleted by the rollback: \(gitea.log)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
        #expect(!result.all.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }
}
