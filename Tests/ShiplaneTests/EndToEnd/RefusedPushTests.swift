import Foundation
import Testing

/// An origin behind `git http-backend` (libgit2 writes a path remote itself and runs none of its
/// hooks, so refusals need a server): its hooks refuse every ref, only the branch, or a run
/// loses a race. Everything is checked with the git command.
@Suite("A push origin refuses: the point of no return is what origin accepted, per ref", .serialized, .offThePool)
struct RefusedPushTests {
    static let token = "ghp_" + String(repeating: "R3f", count: 12)
    static let release = ["bump", "minor", "--commit", "--tag", "--push"]

    /// A repository at 1.2.3 whose origin (a bare repository served over HTTP) holds main and v1.2.3.
    final class Origin: @unchecked Sendable {
        let repo: TemporaryRepository
        let bare: String
        let server: GitHTTPServer
        let start: String

        init() async throws {
            repo = try versionedRepository()
            let served = repo.root + "/served"
            try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
            bare = served + "/origin.git"
            try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", bare], in: served, environment: repo.environment)
            try repo.git("push", "-q", bare, "main", "v1.2.3")
            server = try await GitHTTPServer.start(projectRoot: served, username: "x-access-token", password: RefusedPushTests.token, environment: repo.environment)
            try repo.git("remote", "add", "origin", server.url("origin.git"))
            start = try repo.git("rev-parse", "HEAD")
        }

        /// Runs `git` in the origin; nil when it fails (a ref it does not have).
        func git(_ arguments: String...) -> String? {
            guard let output = try? runProgram("/usr/bin/git", ["--git-dir", bare] + arguments, in: repo.root, environment: repo.environment),
                  output.status == 0 else { return nil }
            return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func hook(_ name: String, _ script: String) throws {
            let path = bare + "/hooks/" + name
            try Data(("#!/bin/sh\n" + script + "\n").utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o755)
        }

        func removeHook(_ name: String) throws {
            try FileManager.default.removeItem(atPath: bare + "/hooks/" + name)
        }

        func shiplane(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandOutput {
            try await repo.shiplaneAsync(arguments, environment: environment.merging(["SHIPLANE_GIT_TOKEN": RefusedPushTests.token]) { $1 })
        }

        var hasLocalRecord: Bool { FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json") }

        /// Nothing of a release here or on origin: the start commit, v1.2.3 only, no record anywhere.
        func expectUntouched(_ context: String) throws {
            #expect(repo.read("VERSION") == "1.2.3\n", "\(context)")
            #expect(try repo.git("rev-parse", "HEAD") == start, "\(context)")
            #expect(try repo.git("tag", "--list") == "v1.2.3", "\(context)")
            #expect(try repo.git("status", "--porcelain").isEmpty, "\(context)")
            #expect(!hasLocalRecord, "\(context): no local record")
            #expect((try? repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil, "\(context): no local record ref")
            #expect(git("rev-parse", "refs/heads/main") == start, "\(context): origin's main unchanged")
            #expect(git("tag", "--list") == "v1.2.3", "\(context): origin's tags unchanged")
            #expect(git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "\(context): no record on origin")
            #expect(git("fsck", "--strict") != nil, "\(context)")
        }
    }

    /// A pre-receive hook refuses every ref: nothing was published, so the run rolls back (exit 1,
    /// the remote's message shown), and once origin accepts pushes the next bump makes the same version.
    @Test func aPushRefusedWholeIsRolledBackAndTheNextBumpMakesTheSameVersion() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        try origin.hook("pre-receive", "echo 'pushes are frozen for the audit' >&2\nexit 1")
        let refused = try await origin.shiplane(Self.release)
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.stderr.contains("origin refused the push"), "\(refused.all)")
        #expect(refused.stderr.contains("pre-receive hook declined"), "\(refused.all)")
        #expect(refused.stderr.contains("origin said: pushes are frozen for the audit"), "the hook's own words: \(refused.all)")
        #expect(!refused.all.contains("point of no return"), "\(refused.all)")
        try origin.expectUntouched("refused whole")

        try origin.removeHook("pre-receive")
        let next = try await origin.shiplane(Self.release)
        #expect(next.status == 0, "\(next.all)")
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "the same version, not 1.4.0")
        #expect(origin.git("rev-parse", "refs/heads/main") == (try origin.repo.git("rev-parse", "HEAD")))
    }

    /// Killed as the push was about to be sent (the record says past the point of no return, the
    /// push intended), then re-run while origin refuses every ref: origin has nothing of it, so
    /// the point is taken back and the run rolls back, earlier attempt included.
    @Test func aPushKilledBeforeItsAnswerThenRefusedWholeOnResumeIsRolledBack() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        let killed = try await origin.shiplane(Self.release, environment: ["SHIPLANE_FAULT": "before-effect:5"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        let record = runRecordText(origin.repo.path) ?? ""
        #expect(record.contains("\"git.push\"") && record.contains("\"pointOfNoReturn\" : \"pushed main, v1.3.0 to origin\""), "\(record)")
        try origin.hook("pre-receive", "exit 1")
        let again = try await origin.shiplane(Self.release)
        #expect(again.status == 1, "\(again.all)")
        #expect(again.stderr.contains("origin refused the push"), "\(again.all)")
        #expect(!again.all.contains("others may have it"), "\(again.all)")
        try origin.expectUntouched("killed, then refused whole")
    }

    /// An update hook protects only main: the tag is accepted, the branch refused. The run says so
    /// ref by ref and is past its point of no return for the tag only (here and in the record on
    /// origin); `resume` changes nothing while origin refuses, and finishes once it accepts.
    @Test func onlyTheBranchRefusedIsReportedPerRefAndResumeFinishesOnceOriginAccepts() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        try origin.hook("update", "if [ \"$1\" = refs/heads/main ]; then echo 'main is protected' >&2; exit 1; fi\nexit 0")
        let partial = try await origin.shiplane(Self.release)
        #expect(partial.status == 75, "\(partial.all)")
        #expect(partial.stderr.contains("origin accepted v1.3.0 but refused main (hook declined)"), "\(partial.all)")
        #expect(partial.stderr.contains("pushed v1.3.0 to origin; origin refused main"), "\(partial.all)")
        let release = try origin.repo.git("rev-parse", "HEAD")
        #expect(release != origin.start)
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release, "origin has the tag")
        #expect(origin.git("rev-parse", "refs/heads/main") == origin.start, "origin refused main")
        let remoteRecord = origin.git("show", "refs/shiplane/run:run.json") ?? ""
        #expect(remoteRecord.contains("pushed v1.3.0 to origin; origin refused main"), "\(remoteRecord)")
        #expect(!remoteRecord.contains("pushed main, v1.3.0"), "the record on origin claims no refused ref")
        let local = runRecordText(origin.repo.path) ?? ""
        #expect(local.contains("\"refused\" : [\n") && local.contains("\"refs/heads/main\""), "\(local)")

        let stillRefused = try await origin.shiplane(["resume"])
        #expect(stillRefused.status == 75, "\(stillRefused.all)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == release, "resume undoes nothing past the point of no return")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(origin.hasLocalRecord)

        try origin.removeHook("update")
        let finished = try await origin.shiplane(["resume"])
        #expect(finished.status == 0, "\(finished.all)")
        #expect(origin.git("rev-parse", "refs/heads/main") == release)
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "a finished run leaves no record on origin")
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("fsck", "--strict") != nil)
    }

    /// A hook refuses only tags (a protected-tags rule): main is accepted, the tag refused. The
    /// run says so ref by ref and is past its point of no return for main only; `resume` changes
    /// nothing while origin refuses, and pushes the tag once it accepts. No second version.
    @Test func onlyTheTagRefusedIsReportedPerRefAndResumeFinishesOnceOriginAccepts() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        try origin.hook("update", "case \"$1\" in refs/tags/*) echo 'tags are protected' >&2; exit 1;; esac\nexit 0")
        let partial = try await origin.shiplane(Self.release)
        #expect(partial.status == 75, "\(partial.all)")
        #expect(partial.stderr.contains("origin accepted main but refused v1.3.0 (hook declined)"), "\(partial.all)")
        let release = try origin.repo.git("rev-parse", "HEAD")
        #expect(release != origin.start)
        #expect(origin.git("rev-parse", "refs/heads/main") == release, "origin has main")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/tags/v1.3.0") == nil, "origin refused the tag")
        let remoteRecord = origin.git("show", "refs/shiplane/run:run.json") ?? ""
        #expect(remoteRecord.contains("pushed main to origin; origin refused v1.3.0"), "\(remoteRecord)")

        let stillRefused = try await origin.shiplane(["resume"])
        #expect(stillRefused.status == 75, "\(stillRefused.all)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == release, "resume undoes nothing past the point of no return")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3\nv1.3.0")

        let next = try await origin.shiplane(["bump", "patch"])
        #expect(next.status == 7, "another command while the release is unfinished: \(next.all)")

        try origin.removeHook("update")
        let finished = try await origin.shiplane(["resume"])
        #expect(finished.status == 0, "\(finished.all)")
        #expect(origin.git("rev-parse", "refs/heads/main") == release)
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release)
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil)
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("fsck", "--strict") != nil)
    }

    /// Origin accepts the tag but refuses main and the run record: the run is unfinished, and its
    /// record's absence on origin must not pass for a run finished elsewhere.
    @Test func aRecordOriginRefusedIsNotTakenForAFinishedRun() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        try origin.hook("update", "case \"$1\" in refs/heads/main|refs/shiplane/*) exit 1;; esac\nexit 0")
        let partial = try await origin.shiplane(Self.release)
        #expect(partial.status == 75, "\(partial.all)")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil)
        let again = try await origin.shiplane(Self.release)
        #expect(again.status == 75, "\(again.all)")
        #expect(!again.stderr.contains("finished elsewhere"), "\(again.all)")
        #expect(again.stderr.contains("Resuming the unfinished run"), "\(again.all)")
        #expect(origin.hasLocalRecord)
    }

    /// After a partial acceptance, `rollback` keeps what origin has (the tag names the release
    /// commit) and says so; no record is left on either side.
    @Test func rollbackAfterAPartialAcceptanceKeepsWhatOriginHas() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        try origin.hook("update", "if [ \"$1\" = refs/heads/main ]; then exit 1; fi\nexit 0")
        let partial = try await origin.shiplane(Self.release)
        #expect(partial.status == 75, "\(partial.all)")
        let release = try origin.repo.git("rev-parse", "HEAD")
        let rollback = try await origin.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(rollback.stdout.contains("origin refused refs/heads/main"), "\(rollback.all)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == release, "the tag on origin names this commit: it stays")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release)
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil)
        #expect(!origin.hasLocalRecord)
    }

    /// Two runs race: between the check of origin's refs and the upload, another run pushes its
    /// release (a pre-push hook plays it). Origin refuses both refs, so the loser published
    /// nothing: it rolls back and names what origin has.
    @Test func aRunThatLosesTheRaceRollsBackAndNamesWhatOriginHas() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        // The winner's release commit, waiting on origin under another name.
        try origin.repo.git("commit", "-q", "--allow-empty", "-m", "chore(release): 1.3.0 (the other run)")
        let winner = try origin.repo.git("rev-parse", "HEAD")
        try origin.repo.git("push", "-q", origin.bare, "HEAD:refs/heads/winner")
        try origin.repo.git("reset", "-q", "--hard", origin.start)
        try origin.repo.write(".git/hooks/pre-push", """
        #!/bin/sh
        git --git-dir='\(origin.bare)' update-ref refs/heads/main refs/heads/winner
        git --git-dir='\(origin.bare)' tag v1.3.0 refs/heads/winner
        exit 0
        """)
        chmod(origin.repo.path + "/.git/hooks/pre-push", 0o755)
        let lost = try await origin.shiplane(Self.release)
        #expect(lost.status == 1, "\(lost.all)")
        #expect(lost.stderr.contains("origin refused the push"), "\(lost.all)")
        #expect(lost.stderr.contains("origin has it at \(winner.prefix(7))"), "\(lost.all)")
        #expect(!lost.all.contains("point of no return"), "\(lost.all)")
        #expect(origin.repo.read("VERSION") == "1.2.3\n")
        #expect(try origin.repo.git("rev-parse", "HEAD") == origin.start)
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3")
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == winner, "the winner's tag stays")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil)
    }

    /// The tag already exists on origin at another commit: the lane is refused at its push, before
    /// the step after it (a notification) runs, and the error names origin's commit.
    @Test func aTagOriginHasAtAnotherCommitStopsTheLaneBeforeItsNotification() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        try origin.repo.git("commit", "-q", "--allow-empty", "-m", "chore(release): 1.3.0 elsewhere")
        let other = try origin.repo.git("rev-parse", "HEAD")
        try origin.repo.git("push", "-q", origin.bare, "HEAD:refs/tags/v1.3.0")
        try origin.repo.git("reset", "-q", "--hard", origin.start)
        let marker = origin.repo.root + "/notified"
        try origin.repo.write("Lanes/Release.swift", """
        import Shiplane
        struct Release: Lane {
            func run(_ lane: LaneContext) async throws {
                let version = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
                try lane.addGitTag("v\\(version)")
                try await lane.push(tags: ["v\\(version)"])
                try await lane.sh("touch", "\(marker)")
            }
        }
        """)
        try origin.repo.git("add", ".")
        try origin.repo.git("commit", "-q", "-m", "chore: lanes")
        let head = try origin.repo.git("rev-parse", "HEAD")
        let refused = try await origin.shiplane(["release"])
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.stderr.contains("already exists on the remote, at \(other.prefix(7))"), "\(refused.all)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the notification never ran")
        #expect(try origin.repo.git("rev-parse", "HEAD") == head)
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3")
        #expect(origin.repo.read("VERSION") == "1.2.3\n")
        #expect(origin.git("rev-parse", "v1.3.0") == other)
        #expect(origin.git("rev-parse", "refs/heads/main") == origin.start)
    }

    /// Two runs of one commit in the same second push identical refs, and origin's receive-pack
    /// takes some refs of each (`cannot lock ref … reference already exists`), as a race in CI
    /// showed. Made certain here: origin's pre-receive hook holds this run's push while the same
    /// refs are pushed by another hand. A refused ref origin holds at the very value sent is there
    /// as this run would have left it; but a release tag refused so was published by the other run.
    private func raceWithIdenticalPush(of refs: [String]) async throws -> (Origin, CommandOutput, String) {
        let origin = try await Origin()
        let held = origin.repo.root + "/held", go = origin.repo.root + "/go"
        try origin.hook("pre-receive", """
            if [ ! -e '\(held)' ]; then
              touch '\(held)'
              for i in $(seq 1 300); do [ -e '\(go)' ] && exit 0; sleep 0.1; done
            fi
            exit 0
            """)
        async let run = origin.shiplane(Self.release)
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: held) { try await Task.sleep(nanoseconds: 50_000_000) }
        // The other run: the very commit and tag, pushed while this run's push waits in the hook.
        let release = try origin.repo.git("rev-parse", "HEAD")
        let pushed = try runProgram("/usr/bin/git", ["push", "-q", origin.bare] + refs, in: origin.repo.path, environment: origin.repo.environment)
        #expect(pushed.status == 0, "\(pushed.all)")
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        let result = try await run
        return (origin, result, release)
    }

    @Test func aReleaseTagTheOtherRunGotFirstStopsThisRunAndRollsItBack() async throws {
        let (origin, lost, release) = try await raceWithIdenticalPush(of: ["main", "v1.3.0"])
        defer { origin.server.stop() }
        #expect(lost.status == 1, "\(lost.all)")
        #expect(lost.stderr.contains("origin already has v1.3.0 at this very commit, and this run did not push it: another run released it first"), "\(lost.all)")
        #expect(!lost.all.contains("point of no return:"), "\(lost.all)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == origin.start, "rolled back here")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3")
        #expect(origin.repo.read("VERSION") == "1.2.3\n")
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("rev-parse", "refs/heads/main") == release, "origin keeps the other run's release")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release)
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "no record of this run on origin")
    }

    @Test func aBranchTheOtherRunMovedToTheSameCommitCountsAsPushed() async throws {
        let (origin, won, release) = try await raceWithIdenticalPush(of: ["main"])
        defer { origin.server.stop() }
        #expect(won.status == 0, "\(won.all)")
        #expect(origin.git("rev-parse", "refs/heads/main") == release)
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release)
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "a finished run leaves no record on origin")
        #expect(!origin.hasLocalRecord)
    }
}
