import Foundation
import Shiplane
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
        // A CI's GITEA_SERVER_URL names another server (a mirror running the jobs): `forge.url` of
        // .shiplane.yml, which the project wrote, comes first for `.gitea()` and `giteaRelease`
        // as for `lane.release` (before, the parts and the fan-in went to the CI's server).
        let token = ["GITEA_TOKEN": gitea.token, "GITEA_SERVER_URL": "http://127.0.0.1:1"]
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

    /// The parts' bytes stay on Gitea: origin holds no blob equal to any attachment (git's object
    /// list as the oracle), each record names its attachment. An attachment replaced on the draft
    /// (same name, other bytes) stops the fan-in with exit 8 before anything is published, naming
    /// the part, the attachment and both SHA-256s; the part's job run again downloads its
    /// attachment (`GET …/releases/{id}/assets/{attachment_id}`, then its `browser_download_url`
    /// with the token), finds it changed and uploads its own bytes again; the fan-in then
    /// publishes every part's bytes.
    @Test func aReplacedGiteaAttachmentStopsTheFanInAndTheRetriedPartUploadsItAgain() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        let world = try await FanOutWorld(
            lane: giteaFanOutLanes, originURL: "https://code.corp.example/acme/rocket.git",
            files: [".shiplane.yml": "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n"])
        defer { world.stop() }
        let token = ["GITEA_TOKEN": gitea.token]
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["release", "--part", part], extra: token)
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        var expected: [String: [UInt8]] = [:]
        for attachment in gitea.allAttachments { expected[attachment.name] = attachment.bytes }
        let listed = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "cat-file", "--batch-all-objects", "--batch-check"],
                                    in: world.origin.root, environment: world.origin.environment).stdout
        for attachment in gitea.allAttachments {
            let file = world.origin.root + "/blob-\(attachment.id)"
            try Data(attachment.bytes).write(to: URL(fileURLWithPath: file))
            let blob = try runProgram("/usr/bin/git", ["hash-object", file], in: world.origin.root, environment: world.origin.environment).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try? FileManager.default.removeItem(atPath: file)
            #expect(!blob.isEmpty && !listed.contains(blob), "origin holds the bytes of \(attachment.name)")
        }
        let linux = try #require(gitea.allAttachments.first { $0.name == "app-linux.tar.gz" })
        let forged = Array("not what the linux part built".utf8)
        gitea.replaceAttachmentBytes(id: linux.id, with: forged)

        gitea.addTag("v1.5.0")
        let fanIn = try await world.job(["release", "--fan-in"], extra: token)
        #expect(fanIn.status == 8, "\(fanIn.output)")
        for text in ["app-linux.tar.gz", "part `linux`", "expected sha256:\(SHA256.hex(of: linux.bytes))", "found sha256:\(SHA256.hex(of: forged))", "--part linux"] {
            #expect(fanIn.output.contains(text), "says \(text): \(fanIn.output)")
        }
        #expect(gitea.allReleases.count == 1 && gitea.allReleases.allSatisfy(\.draft), "nothing published")
        #expect(try world.origin.git("tag", "--list") == "v1.4.0")

        let retry = try await world.job(["release", "--part", "linux"], extra: token)
        #expect(retry.status == 0, "\(retry.output)")
        #expect(retry.output.contains("app-linux.tar.gz holds sha256:\(SHA256.hex(of: forged).prefix(12))"), "\(retry.output)")
        #expect(gitea.log.contains { $0.hasPrefix("GET /api/v1/repos/acme/rocket/releases/") && $0.hasSuffix("/assets/\(linux.id)") }, "\(gitea.log)")
        let fresh = try #require(gitea.allAttachments.first { $0.name == "app-linux.tar.gz" })
        #expect(fresh.bytes == linux.bytes, "the part's own bytes again")
        // Retried once more, with its attachment intact (downloaded and hashed: Gitea gives no
        // digest): nothing is uploaded, changed or deleted.
        let before = gitea.log.count
        let intact = try await world.job(["release", "--part", "linux"], extra: token)
        #expect(intact.status == 0 && intact.output.contains("1 on the parts' draft release as recorded"), "\(intact.output)")
        let asked = gitea.log.dropFirst(before)
        #expect(!asked.contains { !$0.hasPrefix("GET ") }, "only reads: \(Array(asked))")
        #expect(asked.contains("GET /attachments/\(fresh.uuid)"), "the attachment downloaded to check it: \(Array(asked))")
        let again = try await world.job(["release", "--fan-in"], extra: token)
        #expect(again.status == 0, "\(again.output)")
        #expect(gitea.allReleases.count == 1 && gitea.allReleases.allSatisfy { !$0.draft && $0.tag == "v1.5.0" })
        #expect(gitea.allAttachments.map(\.name).sorted() == fanOutAssetNames)
        for attachment in gitea.allAttachments { #expect(expected[attachment.name] == attachment.bytes, "\(attachment.name) intact") }
        #expect(try world.originRefs("refs/shiplane/parts/") == [])
        #expect(!again.output.contains(gitea.token) && !fanIn.output.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }

    /// Beside the parts' draft, four drafts the fan-in finds on Gitea after it published: one of
    /// this release a stopped part job left, with an attachment (deleted), one of this release
    /// that gains an attachment between the fan-in's listing and its second reading (left, with a
    /// warning), one of another commit's release and a person's draft with a placeholder-like tag
    /// and no marker (neither touched). Before, Gitea's orphans stayed until deleted by hand.
    @Test func theFanInDeletesOnlyItsReleasesUnclaimedGiteaDraftsAndOnlyAsTheyWereLeft() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        let world = try await FanOutWorld(
            lane: giteaFanOutLanes, originURL: "https://code.corp.example/acme/rocket.git",
            files: [".shiplane.yml": "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n"])
        defer { world.stop() }
        let token = ["GITEA_TOKEN": gitea.token]
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["release", "--part", part], extra: token)
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let draft = try #require(gitea.allReleases.first)
        let word = try #require(draft.body.split(separator: "\n").first { $0.hasPrefix("<!-- shiplane:parts-draft ") }.map(String.init))
        let base = try world.origin.git("rev-parse", "main")
        let other = String(repeating: "ab", count: 20)
        let prefix = "shiplane-parts-\(base.prefix(12))-"
        let name = "release: parts of \(base.prefix(7)) (not published)"
        let orphan = gitea.addRelease(tag: prefix + "stopped1", draft: true, name: name, body: "Shiplane's draft.\n\n" + word)
        gitea.addAttachment(releaseID: orphan, name: "app-linux.tar.gz", bytes: Array("half a build".utf8))
        let edited = gitea.addRelease(tag: prefix + "stopped2", draft: true, name: name, body: "Shiplane's draft.\n\n" + word)
        let foreign = gitea.addRelease(tag: "shiplane-parts-\(other.prefix(12))-stopped3", draft: true, name: name,
                                       body: word.replacingOccurrences(of: "base=\(base)", with: "base=\(other)"))
        let personal = gitea.addRelease(tag: prefix + "byhand", draft: true, name: name)
        let list = "/api/v1/repos/acme/rocket/releases"
        gitea.inject(FakeGitHub.Fault(
            method: "GET", pathContains: list, remaining: 1,
            // Weak: the stand-in keeps its faults, and a strong capture would keep it and the world
            // (their folders) alive after the test.
            action: .answerAfter({ [weak gitea] in _ = gitea?.addAttachment(releaseID: edited, name: "notes.txt", bytes: Array("by hand".utf8)) }),
            exactPath: list, when: { [weak world] in ((try? world?.originRefs("refs/shiplane/published/")) ?? []) != [] }))

        gitea.addTag("v1.5.0")
        let fanIn = try await world.job(["release", "--fan-in"], extra: token)
        #expect(fanIn.status == 0, "\(fanIn.output)")
        #expect(fanIn.output.contains("deleted the unclaimed draft release \(orphan) (\(prefix)stopped1) on acme/rocket that a stopped part job of `release` made (1 asset: app-linux.tar.gz)"),
                "\(fanIn.output)")
        #expect(fanIn.output.contains("the unclaimed draft release \(edited) (\(prefix)stopped2) on acme/rocket that a stopped part job of `release` made changed while it was looked at (its assets changed): left as it is"),
                "\(fanIn.output)")
        let left = gitea.allReleases
        #expect(left.map(\.id) == [draft.id, edited, foreign, personal], "\(left.map { "\($0.id) \($0.tag)" })")
        #expect(left.first.map { !$0.draft && $0.tag == "v1.5.0" } == true)
        let deletes = gitea.log.filter { $0.hasPrefix("DELETE \(list)/") }
        #expect(deletes == ["DELETE \(list)/\(orphan)"], "\(deletes)")
        #expect(gitea.allAttachments.filter { $0.releaseID == draft.id }.map(\.name).sorted() == fanOutAssetNames)
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }

    /// `shiplane rollback` in a fresh clone of a release whose fan-in never ran, its parts'
    /// draft on Gitea: without GITEA_TOKEN it says which variable to set and deletes nothing;
    /// with it, the draft (with the parts' attachments), the part records and origin's word of
    /// the draft go. The same path as GitHub's (`PartsDraftForge`), which once had a copy per forge.
    @Test func rollbackDeletesTheGiteaDraftThroughTheForgeContract() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        let world = try await FanOutWorld(
            lane: giteaFanOutLanes, originURL: "https://code.corp.example/acme/rocket.git",
            files: [".shiplane.yml": "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n"])
        defer { world.stop() }
        let token = ["GITEA_TOKEN": gitea.token]
        for part in ["linux", "macos"] {
            let ran = try await world.job(["release", "--part", part], extra: token)
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let draft = try #require(gitea.allReleases.first)
        #expect(gitea.allReleases.count == 1 && draft.draft)

        let refused = try await world.job(["rollback"])
        #expect(refused.status != 0 && refused.output.contains("set GITEA_TOKEN (or FORGEJO_TOKEN) so rollback can delete it"), "\(refused.output)")
        #expect(gitea.allReleases.map(\.id) == [draft.id] && !gitea.log.contains { $0.hasPrefix("DELETE ") }, "nothing deleted without a token")
        #expect(try world.originRefs("refs/shiplane/parts/") == ["refs/shiplane/parts/release/linux", "refs/shiplane/parts/release/macos"])

        let rollback = try await world.job(["rollback"], extra: token)
        #expect(rollback.status == 0, "\(rollback.output)")
        for line in [
            "undone: deleted the parts' draft release \(draft.id) on Gitea acme/rocket (2 assets: app-linux.tar.gz, app-macos.tar.gz)",
            "undone: deleted origin's records of parts linux, macos (refs/shiplane/parts/release/…)",
            "undone: deleted origin's word of the draft release (refs/shiplane/drafts/release)",
        ] {
            #expect(rollback.output.contains(line), "\(line)\n\(rollback.output)")
        }
        #expect(gitea.allReleases.isEmpty && gitea.log.contains("DELETE /api/v1/repos/acme/rocket/releases/\(draft.id)"), "\(gitea.log)")
        #expect(try world.originRefs("refs/shiplane/") == [])
        #expect(!rollback.output.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }

    /// `shiplane rollback` of a release whose parts uploaded to Gitea finds the drafts part jobs
    /// made there and never claimed, as it does on GitHub, through the same `PartsDraftForge`
    /// contract: beside the parts' draft origin names, one this release's stopped part job left
    /// (with an attachment: deleted), one that gains an attachment between rollback's listing
    /// and its second reading (left, and said so) and a person's draft with a placeholder-like
    /// tag and no marker (never touched). Origin is on Gitea (`forge.hosts`), so GitHub is not
    /// asked although GITHUB_TOKEN is set. Before, rollback looked on GitHub only and Gitea's
    /// unclaimed drafts stayed until a fan-in ran.
    @Test func rollbackDeletesTheUnclaimedGiteaDraftsAsTheyWereLeft() async throws {
        let gitea = FakeGitea()
        try await gitea.start()
        defer { gitea.stop() }
        let world = try await FanOutWorld(
            lane: giteaFanOutLanes, originURL: "https://code.corp.example/acme/rocket.git",
            files: [".shiplane.yml": "forge:\n  url: \(gitea.baseURL)\n  hosts:\n    code.corp.example: gitea\n"])
        defer { world.stop() }
        let token = ["GITEA_TOKEN": gitea.token]
        let part = try await world.job(["release", "--part", "linux"], extra: token)
        #expect(part.status == 0, "\(part.output)")
        let draft = try #require(gitea.allReleases.first)
        let word = try #require(draft.body.split(separator: "\n").first { $0.hasPrefix("<!-- shiplane:parts-draft ") }.map(String.init))
        let base = try world.origin.git("rev-parse", "main")
        let prefix = "shiplane-parts-\(base.prefix(12))-"
        let name = "release: parts of \(base.prefix(7)) (not published)"
        let orphan = gitea.addRelease(tag: prefix + "stopped1", draft: true, name: name, body: "Shiplane's draft.\n\n" + word)
        gitea.addAttachment(releaseID: orphan, name: "app-macos.tar.gz", bytes: Array("half a build".utf8))
        let edited = gitea.addRelease(tag: prefix + "stopped2", draft: true, name: name, body: "Shiplane's draft.\n\n" + word)
        let personal = gitea.addRelease(tag: prefix + "byhand", draft: true, name: name)
        let orphanLine = "the unclaimed draft release \(orphan) (\(prefix)stopped1) on acme/rocket that a stopped part job of `release` made (1 asset: app-macos.tar.gz)"

        let dry = try await world.job(["rollback", "--dry-run"], extra: token)
        #expect(dry.status == 0 && dry.output.contains("would undo: delete " + orphanLine), "\(dry.output)")
        #expect(gitea.allReleases.count == 4 && !gitea.log.contains { $0.hasPrefix("DELETE ") }, "a dry run deletes nothing: \(gitea.log)")

        let list = "/api/v1/repos/acme/rocket/releases"
        gitea.inject(FakeGitHub.Fault(
            method: "GET", pathContains: list, remaining: 1,
            action: .answerAfter({ _ = gitea.addAttachment(releaseID: edited, name: "notes.txt", bytes: Array("by hand".utf8)) }),
            exactPath: list))
        let rollback = try await world.job(["rollback"], extra: token)
        #expect(rollback.status == 0, "\(rollback.output)")
        for line in [
            "undone: deleted the parts' draft release \(draft.id) on Gitea acme/rocket (1 asset: app-linux.tar.gz)",
            "undone: deleted " + orphanLine,
            "stays: the unclaimed draft release \(edited) (\(prefix)stopped2) on acme/rocket that a stopped part job of `release` made changed while it was looked at (its assets changed): left as it is",
            "Rolled back as far as it safely can; the rest stays (listed above).",
        ] {
            #expect(rollback.output.contains(line), "\(line)\n\(rollback.output)")
        }
        #expect(gitea.allReleases.map(\.id) == [edited, personal], "\(gitea.allReleases.map { "\($0.id) \($0.tag)" })")
        #expect(gitea.log.filter { $0.hasPrefix("DELETE ") } == ["DELETE \(list)/\(draft.id)", "DELETE \(list)/\(orphan)"], "\(gitea.log)")
        #expect(!world.github.log.contains { $0.contains("/repos/acme/rocket/releases") }, "GitHub not asked: \(world.github.log)")
        #expect(try world.originRefs("refs/shiplane/") == [])
        #expect(!rollback.output.contains(gitea.token))
        #expect(gitea.violations.isEmpty, "\(gitea.violations)")
    }
}
