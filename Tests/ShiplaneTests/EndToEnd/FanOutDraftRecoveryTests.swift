import Foundation
import Testing

/// What is left of a fanned-out release whose parts upload to GitHub's draft release (issue 42)
/// when a job stops half-way: a stale word of the draft on origin, a fan-in that never ran, a
/// draft made by a part job killed before origin named it. Built `shiplane`, fresh clones, origin
/// behind `git http-backend`, FakeGitHub checking every request against GitHub's description.
@Suite("What a stopped fanned-out release leaves of its draft", .serialized, .offThePool)
struct FanOutDraftRecoveryTests {
    /// Runs every part of `lane`'s release at once, each in a fresh clone.
    private func runParts(_ world: FanOutWorld, lane: String = "release") async throws {
        try await withThrowingTaskGroup(of: (String, Int32?, String).self) { group in
            for part in ["linux", "macos", "android"] {
                group.addTask { let ran = try await world.job([lane, "--part", part]); return (part, ran.status, ran.output) }
            }
            for try await (part, status, output) in group { #expect(status == 0, "\(part): \(output)") }
        }
    }

    /// The value of `ref` in origin, or nil.
    private func originValue(_ world: FanOutWorld, _ ref: String) throws -> String? {
        let found = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "rev-parse", "--verify", "-q", ref],
                                   in: world.origin.root, environment: world.origin.environment)
        return found.status == 0 ? found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    /// The fan-in retires the parts' records and origin's word of their draft in one push: the
    /// fan-in SIGKILLed while origin holds the answer to that push leaves neither. Shiplane once
    /// deleted the draft's ref by a second push, so such a kill left `refs/shiplane/drafts/LANE`
    /// naming the published release: that state, put back on origin, does not harm the next
    /// release of the lane. Its parts make a draft of their own (the published release gets no
    /// upload), its fan-in publishes it with this release's archives, and origin's word of the
    /// draft is gone after it.
    @Test func theFanInRetiresTheDraftsRefWithThePartsAndAStaleOneDoesNoHarm() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let draftRef = "refs/shiplane/drafts/release"
        try await runParts(world)
        let stale = try #require(try originValue(world, draftRef))
        world.gitServer.holdAnswer(toPushUpdating: "refs/shiplane/published/release", seconds: 30)
        let origin = world.origin
        let killed = try await world.job(["release", "--fan-in"], killWhen: {
            let found = try? runProgram("/usr/bin/git", ["--git-dir", origin.path, "rev-parse", "--verify", "-q", "refs/shiplane/published/release"],
                                        in: origin.root, environment: origin.environment)
            return found?.status == 0
        })
        #expect(killed.status == nil, "killed while origin held the answer to the retirement's push: \(killed.output)")
        let published = try #require(world.github.allReleases.first)
        #expect(world.github.allReleases.count == 1 && !published.draft && published.tag == "v1.5.0")
        #expect(try world.originRefs("refs/shiplane/drafts/") == [] && world.originRefs("refs/shiplane/parts/") == [],
                "the records and the draft's ref went in one push: \((try? world.originRefs("refs/shiplane/")) ?? [])")

        let retried = try await world.job(["release", "--fan-in"])
        #expect(retried.status == 0 || retried.status == 5, "a CI retry of the killed fan-in: \(retried.output)")
        #expect(world.github.allReleases.count == 1 && world.slack.payloads.count == 1, "published once: \(retried.output)")
        let firstAssets = world.github.allAssets.map { "\($0.id) \($0.releaseID) \($0.name) \($0.bytes.count)" }

        // What a kill between two pushes left before: the parts' records retired, the draft's ref not.
        try world.origin.git("update-ref", draftRef, stale)
        let developer = try world.freshClone()
        try developer.write("Sources/More.swift", "let more = 1\n")
        try developer.git("add", "Sources/More.swift")
        try developer.git("commit", "-q", "-m", "feat: more")
        try developer.git("push", "-q", world.origin.path, "HEAD:main")

        try await runParts(world)
        let releases = world.github.allReleases
        #expect(releases.count == 2, "\(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        let next = try #require(releases.first { $0.id != published.id })
        #expect(next.draft, "the next release's parts made a draft of their own")
        #expect(world.github.allAssets.filter { $0.releaseID == published.id }.map { "\($0.id) \($0.releaseID) \($0.name) \($0.bytes.count)" } == firstAssets,
                "the published release got no upload")
        #expect(try originValue(world, draftRef) != stale, "the parts' compare-and-swap replaced the stale ref")

        let second = try await world.job(["release", "--fan-in"])
        #expect(second.status == 0, "\(second.output)")
        let after = world.github.allReleases
        #expect(after.map(\.tag) == ["v1.5.0", "v1.6.0"] && after.allSatisfy { !$0.draft }, "\(after.map { "\($0.tag) draft \($0.draft)" })")
        #expect(world.github.allAssets.filter { $0.releaseID == next.id }.map(\.name).sorted() == fanOutAssetNames)
        #expect(world.github.allAssets.filter { $0.releaseID == published.id }.map { "\($0.id) \($0.releaseID) \($0.name) \($0.bytes.count)" } == firstAssets)
        #expect(try world.origin.git("tag", "--list") == "v1.4.0\nv1.5.0\nv1.6.0")
        #expect(try world.originRefs("refs/shiplane/drafts/") == [] && world.originRefs("refs/shiplane/parts/") == [])
        #expect(world.slack.payloads.count == 2)
        let fsck = try runProgram("/usr/bin/git", ["fsck", "--strict"], in: world.origin.path, environment: world.origin.environment)
        #expect(fsck.status == 0, "\(fsck.all)")
    }

    /// `shiplane rollback` in a fresh clone, where no run record is, of a release whose fan-in
    /// never ran: two of three parts recorded on origin, their archives on the draft. It deletes
    /// the draft, the part records and origin's word of the draft, and says so; run again, it
    /// finds nothing. The release then runs anew: one published release with every archive.
    @Test func rollbackOfPartsWhoseFanInNeverRanDeletesTheDraftAndTheRecords() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        for part in ["linux", "macos"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let draft = try #require(world.github.allReleases.first)
        #expect(world.github.allReleases.count == 1 && draft.draft)
        #expect(try world.originRefs("refs/shiplane/parts/") == ["refs/shiplane/parts/release/linux", "refs/shiplane/parts/release/macos"])

        let rollback = try await world.job(["rollback"])
        #expect(rollback.status == 0, "\(rollback.output)")
        for line in [
            "Rolling back the release of `release` fanned out over CI jobs, whose fan-in never ran",
            "undone: deleted the parts' draft release \(draft.id) on acme/rocket (2 assets: app-linux.tar.gz, app-macos.tar.gz)",
            "undone: deleted origin's records of parts linux, macos (refs/shiplane/parts/release/…)",
            "undone: deleted origin's word of the draft release (refs/shiplane/drafts/release)",
            "Rolled back completely.",
        ] {
            #expect(rollback.output.contains(line), "\(line)\n\(rollback.output)")
        }
        #expect(world.github.allReleases.isEmpty)
        #expect(world.github.log.contains("DELETE /repos/acme/rocket/releases/\(draft.id)"))
        #expect(try world.originRefs("refs/shiplane/") == [], "\((try? world.originRefs("refs/shiplane/")) ?? [])")
        #expect(!rollback.output.contains(world.github.token), "the token is never printed")

        let again = try await world.job(["rollback"])
        #expect(again.status == 0 && again.output.contains("nothing to roll back"), "\(again.output)")

        try await runParts(world)
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        let releases = world.github.allReleases
        #expect(releases.map(\.tag) == ["v1.5.0"] && releases.allSatisfy { !$0.draft }, "\(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        let release = try #require(releases.first)
        // FakeGitHub keeps a deleted release's assets in its store: only the release's own count.
        #expect(world.github.allAssets.filter { $0.releaseID == release.id }.map(\.name).sorted() == fanOutAssetNames)
        #expect(try world.origin.git("tag", "--list") == "v1.4.0\nv1.5.0")
        #expect(try world.originRefs("refs/shiplane/parts/") == [] && world.originRefs("refs/shiplane/drafts/") == [])
        #expect(world.slack.payloads.count == 1)
    }

    /// A draft a fan-in took over (it gave the draft its tag, then was SIGKILLed) is no longer as
    /// the parts left it: `shiplane rollback` in a fresh clone leaves it, the part records and
    /// origin's word of it, and says why; a retry of the fan-in then publishes that draft once.
    @Test func rollbackLeavesADraftAFanInTookOver() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        try await runParts(world, lane: "candidate")
        let draft = try #require(world.github.allReleases.first)
        world.github.inject(FakeGitHub.Fault(method: "PATCH", pathContains: "/releases/\(draft.id)", remaining: 1, action: .answerLate(seconds: 4)))
        let github = world.github
        let killed = try await world.job(["candidate", "--fan-in"], killWhen: { github.allReleases.first?.tag == "v1.5.0-rc.1" })
        #expect(killed.status == nil, "killed after it took the draft over: \(killed.output)")
        let before = try world.originRefs("refs/shiplane/parts/") + world.originRefs("refs/shiplane/drafts/")
        #expect(before.count == 4, "\(before)")

        let deletions = world.github.log.filter { $0.hasPrefix("DELETE ") }.count
        let rollback = try await world.job(["rollback"])
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(rollback.output.contains("stays: the draft release \(draft.id) on acme/rocket is no longer as the parts left it (its tag is v1.5.0-rc.1)"),
                "\(rollback.output)")
        #expect(rollback.output.contains("Rolled back as far as it safely can"), "\(rollback.output)")
        #expect(world.github.log.filter { $0.hasPrefix("DELETE ") }.count == deletions, "nothing deleted: \(world.github.log)")
        #expect(try world.originRefs("refs/shiplane/parts/") + world.originRefs("refs/shiplane/drafts/") == before)

        let retried = try await world.job(["candidate", "--fan-in"])
        #expect(retried.status == 0, "\(retried.output)")
        let releases = world.github.allReleases
        #expect(releases.map(\.id) == [draft.id] && releases.allSatisfy { !$0.draft && $0.tag == "v1.5.0-rc.1" },
                "\(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        #expect(world.github.allAssets.filter { $0.releaseID == draft.id }.map(\.name).sorted() == fanOutAssetNames)
    }

    /// A part job's lane program SIGKILLed after GitHub made its draft and before the job heard
    /// so (the answer held back), so before its compare-and-swap named the draft on origin: the
    /// supervisor, which outlives it, undoes the recorded creation from the journal (it finds
    /// the draft by its placeholder tag in the list) and deletes it. The retry in a fresh clone
    /// makes one draft; with the other parts and the fan-in, one release is published, and no
    /// draft stays on GitHub.
    @Test func aDraftOrphanedBeforeItsClaimIsDeletedByTheSupervisor() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        world.github.inject(FakeGitHub.Fault(method: "POST", pathContains: "/repos/acme/rocket/releases", remaining: 1, action: .answerLate(seconds: 4)))
        let github = world.github
        let killed = try await world.job(["release", "--part", "linux"], killWhen: { !github.allReleases.isEmpty }, onlyLaneProgram: true)
        #expect(killed.status != nil && killed.status != 0, "shiplane lived on and failed: \(killed.output)")
        let orphan = try #require(world.github.log.firstIndex(of: "POST /repos/acme/rocket/releases"))
        #expect(world.github.allReleases.isEmpty, "the supervisor deleted the orphaned draft: \(world.github.allReleases.map { "\($0.id) \($0.tag)" })\n\(killed.output)")
        #expect(world.github.log[orphan...].contains { $0.hasPrefix("DELETE /repos/acme/rocket/releases/") }, "\(world.github.log)")
        #expect(try world.originRefs("refs/shiplane/drafts/") == [] && world.originRefs("refs/shiplane/parts/") == [], "the killed job claimed nothing")

        let retry = try await world.job(["release", "--part", "linux"])
        #expect(retry.status == 0, "\(retry.output)")
        #expect(world.github.allReleases.count == 1 && world.github.allReleases.allSatisfy(\.draft))
        for part in ["macos", "android"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        #expect(world.github.allReleases.count == 1, "one draft: \(world.github.allReleases.map { "\($0.id) \($0.tag)" })")
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        let releases = world.github.allReleases
        #expect(releases.map(\.tag) == ["v1.5.0"] && releases.allSatisfy { !$0.draft }, "no draft stays: \(releases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        let release = try #require(releases.first)
        #expect(world.github.allAssets.filter { $0.releaseID == release.id }.map(\.name).sorted() == fanOutAssetNames)
    }
}
