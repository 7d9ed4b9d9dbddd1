import Foundation
import Testing
import Shiplane

/// Issue 37, item 2: origin's hook holds a release push and then refuses it, the run is killed
/// while it waits, and another runner (a fresh clone) releases the same version. Origin now holds
/// other objects under every ref this run sent (compare-and-swap: its push can never land), so the
/// run never passed its point of no return: `resume`, the same command and `rollback` roll its
/// local effects back (its local tag at another commit than origin's included), say what happened
/// and leave a checkout that `git pull` brings level. Runs the built `shiplane`.
@Suite("A push origin never accepted, then another runner released: never past the point of no return", .serialized, .offThePool)
struct PushNeverAcceptedTests {
    typealias Origin = RefusedPushTests.Origin

    /// Starts the release with origin's pre-receive hook holding the push, kills `shiplane` and
    /// its children while it waits, lets the hook refuse, and releases 1.3.0 from a fresh clone
    /// with the git command; returns origin and the other runner's release commit.
    /// With `tagOnly`, the other runner releases with a tag alone, at origin's main as it was:
    /// origin's main is still at the value it held when this run's push was sent.
    private func killedWhileHeldThenReleasedElsewhere(tagOnly: Bool = false) async throws -> (Origin, String) {
        let origin = try await Origin()
        let held = origin.repo.root + "/held", go = origin.repo.root + "/go", refused = origin.repo.root + "/refused"
        try origin.hook("pre-receive", """
            touch '\(held)'
            for i in $(seq 1 300); do [ -e '\(go)' ] && break; sleep 0.1; done
            echo 'refused after holding the push' >&2
            touch '\(refused)'
            exit 1
            """)
        var environment = origin.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = RefusedPushTests.token
        let run = try SupervisedRun(RefusedPushTests.release, in: origin.repo.path, environment: environment)
        run.wait { FileManager.default.fileExists(atPath: held) }
        #expect(FileManager.default.fileExists(atPath: held), "the push reached origin's hook")
        try run.killEverything()
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        // The hook refuses once it is let go (the client is dead; git's receive-pack goes on).
        run.wait { FileManager.default.fileExists(atPath: refused) }
        #expect(FileManager.default.fileExists(atPath: refused), "origin's hook refused the push")
        try origin.removeHook("pre-receive")
        #expect(origin.git("rev-parse", "refs/heads/main") == origin.start, "origin never accepted the push")
        let record = try RunStore.forWorkTree(origin.repo.path).load()
        #expect(record?.pointOfNoReturn == "pushed main, v1.3.0 to origin", "\(String(describing: record))")

        // Another runner: a fresh clone releases 1.3.0 at a commit of its own (or tags main as it is).
        let clone = origin.repo.root + "/clone"
        try runProgram("/usr/bin/git", ["clone", "-q", origin.bare, clone], in: origin.repo.root, environment: environment)
        if tagOnly {
            for arguments in [["tag", "-a", "v1.3.0", "-m", "Release 1.3.0"], ["push", "-q", "origin", "v1.3.0"]] {
                let done = try runProgram("/usr/bin/git", arguments, in: clone, environment: environment)
                #expect(done.status == 0, "\(done.all)")
            }
            #expect(origin.git("rev-parse", "refs/heads/main") == origin.start, "origin's main is where this run's push found it")
            #expect(try origin.repo.git("rev-parse", "v1.3.0^{commit}") != origin.start, "this run's own local tag names another commit")
            return (origin, origin.start)
        }
        try Data("1.3.0\n".utf8).write(to: URL(fileURLWithPath: clone + "/VERSION"))
        let manifest = try String(contentsOfFile: clone + "/package.json", encoding: .utf8)
        try Data(manifest.replacingOccurrences(of: "\"version\": \"1.2.3\"", with: "\"version\": \"1.3.0\"").utf8)
            .write(to: URL(fileURLWithPath: clone + "/package.json"))
        for arguments in [["commit", "-q", "-am", "chore(release): 1.3.0 from CI"], ["tag", "-a", "v1.3.0", "-m", "Release 1.3.0"],
                          ["push", "-q", "origin", "main", "v1.3.0"]] {
            let done = try runProgram("/usr/bin/git", arguments, in: clone, environment: environment)
            #expect(done.status == 0, "\(done.all)")
        }
        let winner = try #require(origin.git("rev-parse", "refs/heads/main"))
        #expect(winner != origin.start)
        #expect(try origin.repo.git("rev-parse", "v1.3.0^{commit}") != winner, "this run's own local tag names another commit")
        return (origin, winner)
    }

    /// Nothing of the killed run here: the start commit, v1.2.3 only, no record; `git pull` brings the checkout level.
    private func expectRolledBackAndLevelAfterPull(_ origin: Origin, winner: String, _ context: String) throws {
        #expect(origin.repo.read("VERSION") == "1.2.3\n", "\(context)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == origin.start, "\(context)")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3", "\(context): no local v1.3.0 at another commit than origin's")
        #expect(try origin.repo.git("status", "--porcelain").isEmpty, "\(context)")
        #expect(!origin.hasLocalRecord, "\(context): no local record")
        #expect((try? origin.repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil, "\(context): no local record ref")
        #expect(origin.git("rev-parse", "refs/heads/main") == winner, "\(context): origin keeps the other runner's release")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "\(context)")
        // origin's own folder: the git command has no token for the server.
        let pulled = try runProgram("/usr/bin/git", ["pull", "-q", "--ff-only", "--tags", origin.bare, "main"], in: origin.repo.path,
                                    environment: origin.repo.environment)
        #expect(pulled.status == 0, "\(context): \(pulled.all)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == winner, "\(context)")
        #expect(try origin.repo.git("rev-parse", "v1.3.0^{commit}") == winner, "\(context)")
        #expect(origin.git("fsck", "--strict") != nil, "\(context)")
    }

    @Test(arguments: [["resume"], RefusedPushTests.release])
    func aResumeFindsOriginHoldsAnotherReleaseAndRollsBack(_ command: [String]) async throws {
        let (origin, winner) = try await killedWhileHeldThenReleasedElsewhere()
        defer { origin.server.stop() }
        let again = try await origin.shiplane(command)
        #expect(again.status == 1, "not 75 forever: \(again.all)")
        #expect(!again.all.contains("point of no return:"), "\(again.all)")
        #expect(again.stderr.contains("origin never accepted this run's push"), "\(again.all)")
        #expect(again.stderr.contains("v1.3.0 at \(winner.prefix(7))"), "names the winner: \(again.all)")
        #expect(again.stderr.contains("git pull"), "says what to do: \(again.all)")
        try expectRolledBackAndLevelAfterPull(origin, winner: winner, "\(command.joined(separator: " "))")

        let next = try await origin.shiplane(RefusedPushTests.release)
        #expect(next.status == 0, "the next release continues from origin's: \(next.all)")
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0\nv1.4.0")
    }

    /// Issue 37: the other runner released with a tag alone, so origin's main is still at its old
    /// value. The release is its tag, which origin holds at another commit: this run's push can never
    /// publish it, and a branch at its old value holds nothing of this run either. Neither the same
    /// command, `resume` nor `rollback` may count the release as published (75 forever before).
    @Test(arguments: [["resume"], RefusedPushTests.release, ["rollback"]])
    func originMovedOnlyTheTagAndTheBranchIsAtItsOldValue(_ command: [String]) async throws {
        let (origin, winner) = try await killedWhileHeldThenReleasedElsewhere(tagOnly: true)
        defer { origin.server.stop() }
        let again = try await origin.shiplane(command)
        #expect(again.status == (command == ["rollback"] ? 0 : 1), "not 75: \(again.all)")
        #expect(!again.all.contains("point of no return:"), "\(again.all)")
        #expect(!again.all.contains("stays:"), "nothing of this run stays as published: \(again.all)")
        #expect(again.all.contains("origin never accepted this run's push"), "\(again.all)")
        #expect(again.all.contains("v1.3.0 at \(winner.prefix(7))"), "names the winner: \(again.all)")
        try expectRolledBackAndLevelAfterPull(origin, winner: winner, "\(command.joined(separator: " ")) after a tag-only release")
    }

    @Test func rollbackFindsOriginHoldsAnotherReleaseAndUndoesEverything() async throws {
        let (origin, winner) = try await killedWhileHeldThenReleasedElsewhere()
        defer { origin.server.stop() }
        let rollback = try await origin.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(rollback.all.contains("origin never accepted this run's push"), "\(rollback.all)")
        #expect(rollback.stdout.contains("undone:"), "\(rollback.all)")
        try expectRolledBackAndLevelAfterPull(origin, winner: winner, "rollback")

        let next = try await origin.shiplane(RefusedPushTests.release)
        #expect(next.status == 0, "not 'nothing to release': \(next.all)")
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0\nv1.4.0")
    }
}
