import Foundation
import Testing

/// The drafts part jobs leave unclaimed when they race for the parts' draft release (issue 42):
/// the fan-in deletes those of its release once it published, each only while it is as the
/// stopped job left it, and never a person's or another release's. Built `shiplane`, fresh
/// clones, origin behind `git http-backend`, FakeGitHub checking every request.
@Suite("The fan-in deletes the parts' drafts a race left unclaimed", .serialized, .offThePool)
struct FanInOrphanedDraftTests {
    /// The marker line of a parts' draft body (`<!-- shiplane:parts-draft … -->`).
    private func marker(_ body: String) -> String? {
        body.split(separator: "\n").first { $0.hasPrefix("<!-- shiplane:parts-draft ") }.map(String.init)
    }

    /// Two part jobs race for the parts' draft as real processes: the linux job lists GitHub's
    /// releases (none), and its answer is held while the macos job makes its draft, wins the claim
    /// on origin and records its part; then the linux job makes its own draft and is SIGKILLed,
    /// shiplane and lane program, before it hears GitHub's answer: its draft is marked and no
    /// record names it. The linux retry in a fresh clone uses the macos job's draft; after the
    /// android part, the fan-in publishes that draft once and deletes the orphan. Exactly one
    /// release, published, no draft left, every part's archive with its bytes. Before, the orphan
    /// stayed a draft until `shiplane rollback`.
    @Test func aDraftLeftByAPartKilledInTheClaimRaceIsDeletedByTheFanIn() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let github = world.github
        let list = "/repos/acme/rocket/releases"
        // Weak captures: the stand-in keeps its faults, and the world keeps the stand-in; a strong
        // capture would keep both (and the world's folders) alive after the test.
        github.inject(FakeGitHub.Fault(method: "GET", pathContains: list, remaining: 1, action: .answerAfter({ [weak world, weak github] in
            guard let world, let github else { return }
            // Held until the other job's part is on origin; then the held job's draft is made and its answer held.
            while ((try? world.originRefs("refs/shiplane/parts/release/macos")) ?? []).isEmpty { try? await Task.sleep(nanoseconds: 20_000_000) }
            github.inject(FakeGitHub.Fault(method: "POST", pathContains: list, remaining: 1, action: .answerLate(seconds: 60), exactPath: list))
        }), exactPath: list))
        async let linux = world.job(["release", "--part", "linux"], killWhen: { github.allReleases.count == 2 })
        while !github.log.contains("GET \(list)") { try await Task.sleep(nanoseconds: 20_000_000) }
        let macos = try await world.job(["release", "--part", "macos"])
        #expect(macos.status == 0, "\(macos.output)")
        let killed = try await linux
        #expect(killed.status == nil, "killed while GitHub held its draft's answer: \(killed.output)")
        let drafts = github.allReleases
        #expect(drafts.count == 2 && drafts.allSatisfy(\.draft), "\(drafts.map { "\($0.id) \($0.tag)" })")
        let winner = try #require(drafts.first)
        let orphan = try #require(drafts.last)
        #expect(marker(orphan.body) != nil && marker(orphan.body) == marker(winner.body), "both carry this release's marker")
        #expect(try world.originRefs("refs/shiplane/parts/") == ["refs/shiplane/parts/release/macos"])

        let retry = try await world.job(["release", "--part", "linux"])
        #expect(retry.status == 0, "\(retry.output)")
        let android = try await world.job(["release", "--part", "android"])
        #expect(android.status == 0, "\(android.output)")
        #expect(github.allAssets.allSatisfy { $0.releaseID == winner.id } && github.allAssets.map(\.name).sorted() == fanOutAssetNames)
        #expect(github.allReleases.map(\.id) == [winner.id, orphan.id], "the orphan is still there before the fan-in")
        var expected: [String: [UInt8]] = [:]
        for asset in github.allAssets { expected[asset.name] = asset.bytes }

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        #expect(fanIn.output.contains("deleted the unclaimed draft release \(orphan.id) (\(orphan.tag)) on acme/rocket that a stopped part job of `release` made"), "\(fanIn.output)")
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
        #expect(github.allReleases.map(\.id) == [winner.id], "the parts' draft is the release, and no draft is left")
        #expect(github.log.filter { $0 == "DELETE \(list)/\(orphan.id)" }.count == 1 && !github.log.contains("DELETE \(list)/\(winner.id)"))
        #expect(github.takeViolations().isEmpty)
    }

    /// Beside the parts' draft, four drafts the fan-in finds after it published: one of this
    /// release a stopped part job left (deleted), one of this release that changes between the
    /// fan-in's listing and its second reading (an asset added: left, with a warning), one of
    /// another commit's release and a person's draft with a placeholder-like tag and no marker
    /// (neither touched).
    @Test func theFanInDeletesOnlyItsReleasesOrphansAndOnlyAsTheyWereLeft() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let github = world.github
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let draft = try #require(github.allReleases.first)
        let word = try #require(marker(draft.body))
        let base = try world.origin.git("rev-parse", "main")
        let other = String(repeating: "ab", count: 20)
        let prefix = "shiplane-parts-\(base.prefix(12))-"
        let name = "release: parts of \(base.prefix(7)) (not published)"
        let orphan = github.addRelease(tag: prefix + "stopped1", draft: true, name: name, body: "Shiplane's draft.\n\n" + word)
        let edited = github.addRelease(tag: prefix + "stopped2", draft: true, name: name, body: "Shiplane's draft.\n\n" + word)
        let foreign = github.addRelease(tag: "shiplane-parts-\(other.prefix(12))-stopped3", draft: true, name: name,
                                        body: word.replacingOccurrences(of: "base=\(base)", with: "base=\(other)"))
        let personal = github.addRelease(tag: prefix + "byhand", draft: true, name: name)
        let list = "/repos/acme/rocket/releases"
        github.inject(FakeGitHub.Fault(
            method: "GET", pathContains: list, remaining: 1,
            action: .answerAfter({ [weak github] in _ = github?.addAsset(releaseID: edited, name: "notes.txt", bytes: Array("by hand".utf8)) }),
            exactPath: list, when: { [weak world] in ((try? world?.originRefs("refs/shiplane/published/")) ?? []) != [] }))

        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        #expect(fanIn.output.contains("deleted the unclaimed draft release \(orphan) (\(prefix)stopped1) on acme/rocket"), "\(fanIn.output)")
        #expect(fanIn.output.contains("the unclaimed draft release \(edited) (\(prefix)stopped2) on acme/rocket that a stopped part job of `release` made changed while it was looked at (its assets changed): left as it is"),
                "\(fanIn.output)")
        let left = github.allReleases
        #expect(left.map(\.id) == [draft.id, edited, foreign, personal], "\(left.map { "\($0.id) \($0.tag)" })")
        #expect(left.first.map { !$0.draft && $0.tag == "v1.5.0" } == true)
        let deletes = github.log.filter { $0.hasPrefix("DELETE \(list)/") }
        #expect(deletes == ["DELETE \(list)/\(orphan)"], "\(deletes)")
        #expect(github.allAssets.filter { $0.releaseID == draft.id }.map(\.name).sorted() == fanOutAssetNames)
        #expect(github.takeViolations().isEmpty)
    }
}
