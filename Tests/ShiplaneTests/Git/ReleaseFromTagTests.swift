import Foundation
import Shiplane
import ShiplaneTesting
import Testing

/// `lane.releaseFromTag()` in a lane's own tests: the tag at HEAD, its version, the tag before it.
@Suite("releaseFromTag: the release a tag asks for", .offThePool)
struct ReleaseFromTagTests {
    private func tagged(_ files: [String: String], tags: [String]) throws -> FixtureRepository {
        let repo = try FixtureRepository(files: files)
        try repo.git("tag", "v0.1.0")
        try repo.git("commit", "-q", "--allow-empty", "-m", "feat: more")
        for tag in tags { try repo.git("tag", "-a", tag, "-m", tag) }
        return repo
    }

    @Test(arguments: [false, true])
    func aTagOnlyProjectsTagAtHeadIsTheRelease(dryRun: Bool) throws {
        let repo = try tagged(["README.md": "# app\n"], tags: ["v0.2.0"])
        let release = try TestLaneContext(workingDirectory: repo.path, dryRun: dryRun).context.releaseFromTag()
        #expect(release.tag == "v0.2.0" && release.version.description == "0.2.0")
        #expect(release.previousTag == "v0.1.0" && release.source == "HEAD")
        #expect(release.changelogRange == .range(from: "v0.1.0", to: "v0.2.0"))
    }

    @Test func aPrereleaseTagNamedByTheLaneMatchesItsVersionFile() throws {
        let repo = try tagged(["VERSION": "2.0.0-rc.1\n"], tags: ["v2.0.0-rc.1"])
        let release = try TestLaneContext(workingDirectory: repo.path).context.releaseFromTag("v2.0.0-rc.1")
        #expect(release.version.description == "2.0.0-rc.1" && release.source == "the lane")
    }

    @Test func versionFilesThatDisagreeAmongThemselvesNameEachFile() throws {
        let repo = try tagged(["VERSION": "1.4.0\n", "App.xcconfig": "MARKETING_VERSION = 1.3.0\n"], tags: ["v1.4.0"])
        #expect {
            try TestLaneContext(workingDirectory: repo.path).context.releaseFromTag()
        } throws: { error in
            let all = (error as? any ReportableError)?.allErrors.compactMap { $0 as? any ReportableError } ?? []
            let disagreement = all.first { $0.message.contains("disagree") }
            let files = disagreement?.info.map(\.key) ?? []
            return files.contains("VERSION") && files.contains("App.xcconfig")
        }
    }
}
