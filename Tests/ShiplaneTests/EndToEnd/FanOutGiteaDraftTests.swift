import Foundation
import Testing

/// The fanned-out release with its parts uploading to a Gitea draft release (`draft: .gitea()`)
/// and the fan-in publishing it with `giteaRelease`.
private let giteaFanOutLanes = #"""
import Shiplane

struct Release: Lane {
    static let summary = "One release, three runners, one draft release on Gitea"

    func run(_ lane: LaneContext) async throws {
        try await lane.part("linux", os: "linux", arch: "x86_64", draft: .gitea()) {
            _ = try lane.archive(["Sources", "VERSION"], to: "dist/app-linux.tar.gz")
        }
        try await lane.part("macos", os: "macos", arch: "arm64", draft: .gitea()) {
            _ = try lane.archive(["Sources", "Package.swift"], to: "dist/app-macos.tar.gz")
        }
        try await lane.part("android", os: "linux", draft: .gitea()) {
            _ = try lane.archive(["App.xcconfig"], to: "dist/app-android.tar.gz")
        }
        let version = try lane.bumpVersion(.auto)
        try lane.commitVersionBump(message: "Version bump to \(version)")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        try await lane.giteaRelease(tag: "v\(version)", notes: "notes", assets: lane.artifacts)
    }
}
"""#

/// Parts of a release on a Gitea origin upload to one Gitea draft release (`draft: true` in its
/// release API), agreed through `refs/shiplane/drafts/LANE` on origin; the fan-in gives it the
/// release's tag and publishes it once (issue 42). Built `shiplane`, fresh clones, origin behind
/// `git http-backend`, FakeGitea checking every request against Gitea's published swagger.
@Suite("Fanned-out parts upload to one Gitea draft release", .serialized, .offThePool)
struct FanOutGiteaDraftTests {
    @Test func threePartsAtOnceMakeOneGiteaDraftThatTheFanInPublishesOnce() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        let url = "https://code.corp.example/acme/rocket.git"
        let world = try await FanOutWorld(
            lane: giteaFanOutLanes, originURL: url,
            files: [".shiplane.yml": "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n"])
        defer { world.stop() }
        // The jobs name the server as a CI would (`lane.part`'s `.gitea()` and `giteaRelease` read
        // GITEA_SERVER_URL; `forge.url` of .shiplane.yml is `lane.release`'s).
        let token = ["GITEA_TOKEN": gitea.token, "GITEA_SERVER_URL": gitea.baseURL]
        try await withThrowingTaskGroup(of: (String, Int32?, String).self) { group in
            for part in ["linux", "macos", "android"] {
                group.addTask { let ran = try await world.job(["release", "--part", part], extra: token); return (part, ran.status, ran.output) }
            }
            for try await (part, status, output) in group { #expect(status == 0, "\(part): \(output)") }
        }
        let drafts = gitea.allReleases
        #expect(drafts.count == 1 && drafts.allSatisfy(\.draft), "one draft: \(drafts.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        let draft = try #require(drafts.first)
        #expect(draft.tag.hasPrefix("shiplane-parts-") && draft.body.contains("<!-- shiplane:parts-draft lane=release "), "\(draft)")
        let made = gitea.log.filter { $0 == "POST /api/v1/repos/acme/rocket/releases" }.count
        let deleted = gitea.log.filter { $0.hasPrefix("DELETE /api/v1/repos/acme/rocket/releases/") }.count
        #expect(made >= 1 && deleted == made - 1, "every draft but the winner's was deleted by its maker: \(made) made, \(deleted) deleted\n\(gitea.log)")
        #expect(gitea.allAttachments.allSatisfy { $0.releaseID == draft.id } && gitea.allAttachments.map(\.name).sorted() == fanOutAssetNames)
        #expect(try world.originRefs("refs/shiplane/drafts/") == ["refs/shiplane/drafts/release"])
        var expected: [String: [UInt8]] = [:]
        for attachment in gitea.allAttachments { expected[attachment.name] = attachment.bytes }

        // Gitea's tags are origin's; the stand-in is told of the one the fan-in pushes before its release.
        gitea.addTag("v1.5.0")
        let fanIn = try await world.job(["release", "--fan-in"], extra: token)
        #expect(fanIn.status == 0, "\(fanIn.output)")
        #expect(fanIn.output.contains("the parts uploaded their artifacts to the draft release \(draft.id)"), "\(fanIn.output)")
        let releases = gitea.allReleases
        #expect(releases.map(\.id) == [draft.id] && releases.allSatisfy { !$0.draft && $0.tag == "v1.5.0" && $0.body == "notes" },
                "the parts' draft is the release: \(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        #expect(gitea.allAttachments.map(\.name).sorted() == fanOutAssetNames)
        for attachment in gitea.allAttachments { #expect(expected[attachment.name] == attachment.bytes, "\(attachment.name) intact") }
        for name in fanOutAssetNames {
            #expect(gitea.log.filter { $0.hasSuffix("/assets?name=\(name)") && $0.hasPrefix("POST ") }.count == 1, "\(name) uploaded once, by its part")
        }
        #expect(try world.origin.git("tag", "--list") == "v1.4.0\nv1.5.0")
        #expect(try world.originRefs("refs/shiplane/drafts/") == [] && world.originRefs("refs/shiplane/parts/") == [])
        #expect(!fanIn.output.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }
}
