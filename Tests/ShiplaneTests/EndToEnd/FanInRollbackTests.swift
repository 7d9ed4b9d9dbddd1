import Foundation
import Testing

/// `shiplane rollback` of a fanned-out release (issue 42) where nothing of it is in the checkout:
/// a fresh clone, a CI job after the runner that ran the fan-in was lost. Built `shiplane`,
/// origin behind `git http-backend`, FakeGitHub checking every request against GitHub's
/// description; origin checked with the `git` command.
@Suite("Rolling back a fanned-out release from a fresh clone", .serialized, .offThePool)
struct FanInRollbackTests {
    /// Origin's branches and tags, `NAME VALUE` per line.
    private func originRefs(_ world: FanOutWorld) throws -> [String] {
        let listed = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags"],
                                    in: world.origin.root, environment: world.origin.environment)
        return listed.stdout.split(separator: "\n").map(String.init)
    }

    /// Requests that change something on the stand-in (`POST`, `PATCH`, `DELETE`), from `start`.
    private func changes(_ world: FanOutWorld, from start: Int) -> [String] {
        world.github.log.dropFirst(start).filter { !$0.hasPrefix("GET ") }
    }

    /// A fan-in SIGKILLed once origin has its push (main, v1.5.0, `refs/shiplane/run`; origin holds
    /// back its answer), rolled back by `shiplane rollback` in a fresh clone, where no run record
    /// is: it reads origin's record and rolls the release back as one. The dry run first lists
    /// the undos and changes nothing; the rollback then deletes the parts' draft with its three
    /// archives, the three part records, origin's word of the draft and the run record, and says
    /// that the pushed commit and tag stay (past the point of no return others may have them). A
    /// second rollback finds nothing. Before, the fresh clone's rollback never read the run
    /// record: it was left on origin, naming parts that were gone.
    @Test func aFanInKilledPastItsPushIsRolledBackAsOneFromAFreshClone() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let before = try originRefs(world)
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let draft = try #require(world.github.allReleases.first)
        #expect(world.github.allReleases.count == 1 && draft.draft)
        let origin = world.origin
        world.gitServer.holdAnswer(toPushUpdating: "refs/tags/v1.5.0", seconds: 30)
        let killed = try await world.job(["release", "--fan-in"], killWhen: {
            let found = try? runProgram("/usr/bin/git", ["--git-dir", origin.path, "rev-parse", "--verify", "-q", "refs/tags/v1.5.0"],
                                        in: origin.root, environment: origin.environment)
            return found?.status == 0
        })
        #expect(killed.status == nil, "\(killed.output)")
        let pushed = try origin.git("rev-parse", "main")
        let leftOnOrigin = try world.originRefs("refs/shiplane/")
        #expect(leftOnOrigin == ["refs/shiplane/drafts/release", "refs/shiplane/parts/release/android", "refs/shiplane/parts/release/linux",
                                 "refs/shiplane/parts/release/macos", "refs/shiplane/run"], "\(leftOnOrigin)")

        let undos = [
            "the parts' draft release \(draft.id) on acme/rocket (3 assets: app-android.tar.gz, app-linux.tar.gz, app-macos.tar.gz)",
            "origin's records of parts android, linux, macos (refs/shiplane/parts/release/…)",
            "origin's word of the draft release (refs/shiplane/drafts/release)",
            "origin's run record (refs/shiplane/run)",
        ]
        let refsBefore = try originRefs(world)
        let logStart = world.github.log.count
        let dry = try await world.job(["rollback", "--dry-run"])
        #expect(dry.status == 0, "\(dry.output)")
        #expect(dry.output.contains("Would roll back the unfinished run of `shiplane release (with the options it was started with)` recorded on origin (refs/shiplane/run)"),
                "\(dry.output)")
        for undo in undos { #expect(dry.output.contains("would undo: delete " + undo), "\(undo)\n\(dry.output)") }
        #expect(dry.output.contains("stays: not undone") && dry.output.contains("Dry run: nothing was changed."), "\(dry.output)")
        #expect(try originRefs(world) == refsBefore && world.originRefs("refs/shiplane/") == leftOnOrigin, "the dry run changed origin")
        #expect(changes(world, from: logStart).isEmpty && world.github.allReleases.map(\.id) == [draft.id], "\(world.github.log)")

        let rollback = try await world.job(["rollback"])
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(rollback.output.contains("Rolling back the unfinished run of `shiplane release (with the options it was started with)` recorded on origin (refs/shiplane/run):"),
                "\(rollback.output)")
        for undo in undos { #expect(rollback.output.contains("undone: deleted " + undo), "\(undo)\n\(rollback.output)") }
        #expect(rollback.output.contains("stays: not undone (") && rollback.output.contains("done before the point of no return"), "\(rollback.output)")
        #expect(rollback.output.contains("Rolled back as far as it safely can; the rest stays (listed above)."), "\(rollback.output)")
        #expect(!rollback.output.contains(world.github.token), "the token is never printed")
        // The stand-in: no release, no draft; the draft (and its assets) deleted by one DELETE.
        #expect(world.github.allReleases.isEmpty, "\(world.github.allReleases.map { "\($0.id) \($0.tag) draft \($0.draft)" })")
        #expect(changes(world, from: logStart) == ["DELETE /repos/acme/rocket/releases/\(draft.id)"], "\(world.github.log)")
        // Origin, by git: no record of any kind; main and v1.5.0 as the push left them (they
        // passed the point of no return), every other branch and tag as before the release.
        #expect(try world.originRefs("refs/shiplane/") == [], "\((try? world.originRefs("refs/shiplane/")) ?? [])")
        let tagged = try origin.git("rev-parse", "refs/tags/v1.5.0^{commit}")
        let parent = try origin.git("rev-parse", "main^")
        let mainBefore = before.first { $0.hasPrefix("refs/heads/main ") }.map { String($0.dropFirst("refs/heads/main ".count)) }
        #expect(tagged == pushed && parent == mainBefore, "v1.5.0 on the pushed release commit, whose parent is main before the release")
        var expected = before.filter { !$0.hasPrefix("refs/heads/main ") }
        expected.append("refs/heads/main \(pushed)")
        expected.append("refs/tags/v1.5.0 \(try origin.git("rev-parse", "refs/tags/v1.5.0"))")
        let after = try originRefs(world)
        #expect(after.sorted() == expected.sorted(), "\(after)")
        let fsck = try runProgram("/usr/bin/git", ["fsck", "--strict"], in: origin.path, environment: origin.environment)
        #expect(fsck.status == 0, "\(fsck.all)")

        let again = try await world.job(["rollback"])
        #expect(again.status == 0 && again.output.contains("No unfinished run in this repository or on origin: nothing to roll back."), "\(again.output)")
        #expect(world.slack.payloads.isEmpty)
    }

    /// A fresh clone's rollback (and its dry run) when the release finished: nothing unfinished
    /// here or on origin, so it says so (exit 0) and changes nothing — not origin's refs, not the
    /// published release, not a draft a person made with a tag like a part job's (it carries no
    /// word of Shiplane's, so it is never taken for an unclaimed part's draft).
    @Test func aRollbackWithNothingUnfinishedChangesNothing() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let base = try world.origin.git("rev-parse", "main")
        let personal = world.github.addRelease(tag: "shiplane-parts-\(base.prefix(12))-byhand", draft: true, name: "release: parts of \(base.prefix(7)) (not published)")
        for part in ["linux", "macos", "android"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        let refs = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "for-each-ref", "--format=%(refname) %(objectname)"],
                                  in: world.origin.root, environment: world.origin.environment).stdout
        let releases = world.github.allReleases.map { "\($0.id) \($0.tag) \($0.draft)" }
        #expect(releases.count == 2, "the published release and the person's draft: \(releases)")
        let logStart = world.github.log.count
        for arguments in [["rollback", "--dry-run"], ["rollback"]] {
            let rollback = try await world.job(arguments)
            #expect(rollback.status == 0, "\(arguments): \(rollback.output)")
            #expect(rollback.output.contains("No unfinished run in this repository or on origin: nothing to roll back."), "\(arguments): \(rollback.output)")
        }
        let after = try runProgram("/usr/bin/git", ["--git-dir", world.origin.path, "for-each-ref", "--format=%(refname) %(objectname)"],
                                   in: world.origin.root, environment: world.origin.environment).stdout
        #expect(after == refs)
        #expect(world.github.allReleases.map { "\($0.id) \($0.tag) \($0.draft)" } == releases)
        #expect(changes(world, from: logStart).isEmpty, "\(world.github.log)")
        #expect(world.github.allReleases.contains { $0.id == personal && $0.draft })
    }

    /// A part job SIGKILLed — `shiplane` and its lane program, as a lost runner — after GitHub
    /// made its draft and before it heard so (the answer held back), so before origin named the
    /// draft: no supervisor is left to delete it. The retry in a fresh clone finds that draft by
    /// its placeholder tag and the word Shiplane wrote into it, and adopts it: one draft, the
    /// part's archive uploaded once. A person's draft with a like tag is left alone. Rollback then
    /// deletes the adopted draft; a draft orphaned so again is deleted by rollback too, found the
    /// same way with nothing on origin naming it. Before, the retry made a second draft and the
    /// orphan stayed until deleted by hand.
    @Test func aDraftOrphanedByAKilledPartIsAdoptedByItsRetryAndRolledBack() async throws {
        let world = try await FanOutWorld(lane: fanOutDraftLanes)
        defer { world.stop() }
        let base = try world.origin.git("rev-parse", "main")
        let personal = world.github.addRelease(tag: "shiplane-parts-\(base.prefix(12))-byhand", draft: true, name: "release: parts of \(base.prefix(7)) (not published)")
        let github = world.github

        /// Kills a linux part job once GitHub made its draft; returns that draft's id.
        func orphanADraft() async throws -> Int {
            let count = github.allReleases.count
            github.inject(FakeGitHub.Fault(method: "POST", pathContains: "/repos/acme/rocket/releases", remaining: 1, action: .answerLate(seconds: 20)))
            let killed = try await world.job(["release", "--part", "linux"], killWhen: { github.allReleases.count > count })
            #expect(killed.status == nil, "killed with its lane program: \(killed.output)")
            #expect(try world.originRefs("refs/shiplane/") == [], "the killed job claimed nothing")
            return try #require(github.allReleases.last { $0.id != personal }?.id)
        }

        let orphan = try await orphanADraft()
        #expect(github.allReleases.map(\.id) == [personal, orphan])
        let retry = try await world.job(["release", "--part", "linux"])
        #expect(retry.status == 0, "\(retry.output)")
        #expect(retry.output.contains("found the unclaimed draft release \(orphan) ("), "\(retry.output)")
        #expect(github.allReleases.map(\.id) == [personal, orphan] && github.allReleases.allSatisfy(\.draft), "one draft of the release, no second one")
        #expect(github.log.filter { $0.hasPrefix("POST /uploads/") && $0.hasSuffix("?name=app-linux.tar.gz") }.count == 1, "\(github.log)")
        #expect(github.allAssets.filter { $0.releaseID == orphan }.map(\.name) == ["app-linux.tar.gz"])
        #expect(github.allAssets.filter { $0.releaseID == personal }.isEmpty)
        #expect(try world.originRefs("refs/shiplane/") == ["refs/shiplane/drafts/release", "refs/shiplane/parts/release/linux"])

        let rollback = try await world.job(["rollback"])
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(rollback.output.contains("undone: deleted the parts' draft release \(orphan) on acme/rocket (1 asset: app-linux.tar.gz)"), "\(rollback.output)")
        #expect(github.allReleases.map(\.id) == [personal], "the person's draft stays")
        #expect(try world.originRefs("refs/shiplane/") == [])

        let second = try await orphanADraft()
        let tag = try #require(github.allReleases.first { $0.id == second }?.tag)
        let dry = try await world.job(["rollback", "--dry-run"])
        #expect(dry.status == 0 && dry.output.contains("would undo: delete the unclaimed draft release \(second) (\(tag)) on acme/rocket that a stopped part job of `release` made"),
                "\(dry.output)")
        #expect(github.allReleases.map(\.id) == [personal, second])
        let again = try await world.job(["rollback"])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.contains("undone: deleted the unclaimed draft release \(second) (\(tag)) on acme/rocket that a stopped part job of `release` made"),
                "\(again.output)")
        #expect(github.allReleases.map(\.id) == [personal], "the person's draft stays")
        #expect(!github.log.contains { $0.hasSuffix("/releases/\(personal)") && !$0.hasPrefix("GET ") }, "nothing sent to the person's draft: \(github.log)")
    }
}
