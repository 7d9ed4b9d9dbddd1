import Foundation
import Testing
import Shiplane

/// Issue 37, the reverse race of item 2, and a held push that lands late: origin's hook holds the
/// release push (main and v1.3.0); meanwhile origin's main moves on without v1.3.0 — another run
/// releases 1.2.4, or someone pushes a commit. Receive-pack applies each ref on its own, so the
/// held push can never move main, but can still create v1.3.0 alone. Runs the built `shiplane`
/// against `git http-backend`, the git command as the oracle.
@Suite("A release push after origin's branch moved on without its tag: never 75 forever, never a second release", .serialized, .offThePool)
struct BranchMovedOnPushTests {
    typealias Origin = RefusedPushTests.Origin

    /// Origin's pre-receive hook: a push carrying v1.3.0 is held until `go`, then accepted or
    /// refused; any other push goes through at once.
    private struct HeldPush {
        let held: String, go: String, answered: String

        init(_ origin: Origin, accept: Bool) throws {
            held = origin.repo.root + "/held"
            go = origin.repo.root + "/go"
            answered = origin.repo.root + "/answered"
            try origin.hook("pre-receive", """
                input=$(cat)
                case "$input" in *refs/tags/v1.3.0*) ;; *) exit 0 ;; esac
                touch '\(held)'
                for i in $(seq 1 300); do [ -e '\(go)' ] && break; sleep 0.1; done
                touch '\(answered)'
                \(accept ? "exit 0" : "echo 'refused after holding the push' >&2; exit 1")
                """)
        }

        var isHeld: Bool { FileManager.default.fileExists(atPath: held) }

        /// Lets the held push go and waits until the hook answered.
        func letGo() {
            _ = FileManager.default.createFile(atPath: go, contents: Data())
            for _ in 0..<300 where !FileManager.default.fileExists(atPath: answered) { usleep(100_000) }
        }
    }

    /// Another runner moves origin's main from a fresh clone, without v1.3.0: it releases 1.2.4
    /// (`released`) or pushes a commit. Returns origin's main.
    private func moveOriginsMain(_ origin: Origin, released: Bool) throws -> String {
        var environment = origin.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = RefusedPushTests.token
        let clone = origin.repo.root + "/clone"
        try runProgram("/usr/bin/git", ["clone", "-q", origin.bare, clone], in: origin.repo.root, environment: environment)
        var steps: [[String]]
        if released {
            try Data("1.2.4\n".utf8).write(to: URL(fileURLWithPath: clone + "/VERSION"))
            let manifest = try String(contentsOfFile: clone + "/package.json", encoding: .utf8)
            try Data(manifest.replacingOccurrences(of: "\"version\": \"1.2.3\"", with: "\"version\": \"1.2.4\"").utf8)
                .write(to: URL(fileURLWithPath: clone + "/package.json"))
            steps = [["commit", "-q", "-am", "chore(release): 1.2.4 from CI"], ["tag", "-a", "v1.2.4", "-m", "Release 1.2.4"]]
        } else {
            try Data("someone's change\n".utf8).write(to: URL(fileURLWithPath: clone + "/NOTES.md"))
            steps = [["add", "NOTES.md"], ["commit", "-q", "-m", "docs: notes"]]
        }
        steps.append(["push", "-q", "origin", "main"] + (released ? ["v1.2.4"] : []))
        for arguments in steps {
            let done = try runProgram("/usr/bin/git", arguments, in: clone, environment: environment)
            #expect(done.status == 0, "\(done.all)")
        }
        let moved = try #require(origin.git("rev-parse", "refs/heads/main"))
        #expect(moved != origin.start)
        return moved
    }

    /// The release started with origin holding its push, every process killed while it waits
    /// (a dead CI job), origin's main moved on meanwhile. The record says past the point of no return.
    private func killedWhileHeld(_ origin: Origin, _ hook: HeldPush, released: Bool) throws -> String {
        var environment = origin.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = RefusedPushTests.token
        let run = try SupervisedRun(RefusedPushTests.release, in: origin.repo.path, environment: environment)
        run.wait { hook.isHeld }
        #expect(hook.isHeld, "the push reached origin's hook")
        try run.killEverything()
        let moved = try moveOriginsMain(origin, released: released)
        let record = try RunStore.forWorkTree(origin.repo.path).load()
        #expect(record?.pointOfNoReturn == "pushed main, v1.3.0 to origin", "\(String(describing: record))")
        return moved
    }

    /// Nothing of the rolled-back run here, nothing of it on origin, and `git pull` brings the checkout level.
    private func expectRolledBack(_ origin: Origin, moved: String, tags: String, _ context: String) throws {
        #expect(origin.repo.read("VERSION") == "1.2.3\n", "\(context)")
        #expect(try origin.repo.git("rev-parse", "HEAD") == origin.start, "\(context): the release commit is undone")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3", "\(context): no local v1.3.0 that origin does not have")
        #expect(try origin.repo.git("status", "--porcelain", "--untracked-files=no").isEmpty, "\(context)")
        #expect(!origin.hasLocalRecord, "\(context): the run's record is retired")
        #expect((try? origin.repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil, "\(context)")
        #expect(origin.git("rev-parse", "refs/heads/main") == moved, "\(context): origin keeps what moved its main")
        #expect(origin.git("tag", "--list") == tags, "\(context)")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "\(context)")
        #expect(origin.git("fsck", "--strict") != nil, "\(context)")
    }

    private func pull(_ origin: Origin) throws {
        let pulled = try runProgram("/usr/bin/git", ["pull", "-q", "--ff-only", "--tags", origin.bare, "main"], in: origin.repo.path,
                                    environment: origin.repo.environment)
        #expect(pulled.status == 0, "\(pulled.all)")
    }

    /// Item 1: origin refused the held push; its main moved on and it has no v1.3.0. `resume`, the
    /// same command and `rollback` roll the run back (not 75 forever), say why, and the next
    /// release is decided again from origin's main: one v1.3.0, on top of what moved main.
    @Test(arguments: ["resume", "release", "rollback"])
    func originsBranchMovedOnWithoutTheTagAndTheRunRollsBack(_ command: String) async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        let hook = try HeldPush(origin, accept: false)
        let released = command == "release"
        let moved = try killedWhileHeld(origin, hook, released: released)
        hook.letGo()
        try origin.removeHook("pre-receive")
        let tags = released ? "v1.2.3\nv1.2.4" : "v1.2.3"
        #expect(origin.git("tag", "--list") == tags, "origin never took v1.3.0")

        let again = try await origin.shiplane(command == "release" ? RefusedPushTests.release : [command])
        #expect(again.status == (command == "rollback" ? 0 : 1), "not 75 forever: \(again.all)")
        #expect(!again.all.contains("point of no return:"), "\(again.all)")
        #expect(!again.all.contains("stays:"), "\(again.all)")
        #expect(again.all.contains("origin never accepted this run's push"), "\(again.all)")
        #expect(again.all.contains("main at \(moved.prefix(7))") && again.all.contains("no v1.3.0"), "names what origin has: \(again.all)")
        #expect(again.all.contains("moved on"), "\(again.all)")
        #expect(again.all.contains("git pull"), "says what to do: \(again.all)")
        try expectRolledBack(origin, moved: moved, tags: tags, command)

        try pull(origin)
        #expect(try origin.repo.git("rev-parse", "HEAD") == moved)
        let next = try await origin.shiplane(RefusedPushTests.release)
        #expect(next.status == 0, "the next release is decided on origin's main: \(next.all)")
        let release = try origin.repo.git("rev-parse", "HEAD")
        #expect(origin.git("tag", "--list") == tags + "\nv1.3.0", "one release of 1.3.0")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release && origin.git("rev-parse", "refs/heads/main") == release)
        #expect(try origin.repo.git("rev-parse", "HEAD^") == moved, "released on top of what moved main")
        #expect(try origin.repo.git("rev-parse", "v1.3.0^{commit}") == release, "the local tag is origin's")
    }

    /// Item 2: the run rolled back while origin still held its push, and origin then applied it:
    /// its main had moved on, so only v1.3.0 landed, at the rolled-back commit. The next push
    /// from this checkout finds it and stops before sending anything, saying so once; it never
    /// makes a second release, and no local tag names another commit than origin's.
    @Test func aHeldPushThatLandsAfterTheRollbackIsFoundOnceByTheNextRelease() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        let hook = try HeldPush(origin, accept: true)
        let moved = try killedWhileHeld(origin, hook, released: false)
        let stranded = try origin.repo.git("rev-parse", "HEAD")

        let resumed = try await origin.shiplane(["resume"])
        #expect(resumed.status == 1, "\(resumed.all)")
        #expect(resumed.all.contains("origin never accepted this run's push"), "\(resumed.all)")
        #expect(resumed.all.contains("may yet create v1.3.0 alone"), "warns that the held push may still land: \(resumed.all)")
        try expectRolledBack(origin, moved: moved, tags: "v1.2.3", "resume while origin still holds the push")

        hook.letGo()
        for _ in 0..<100 where origin.git("rev-parse", "--verify", "-q", "refs/tags/v1.3.0") == nil { usleep(100_000) }
        try origin.removeHook("pre-receive")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == stranded, "origin applied the held push's tag alone, late")
        #expect(origin.git("rev-parse", "refs/heads/main") == moved, "never its main")

        let next = try await origin.shiplane(RefusedPushTests.release)
        #expect(next.status == 1, "\(next.all)")
        #expect(next.stderr.contains("applied part of a push after all"), "\(next.all)")
        #expect(next.stderr.contains("v1.3.0 at \(stranded.prefix(7))"), "\(next.all)")
        #expect(next.stderr.contains("This run sent nothing"), "\(next.all)")
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil, "the held push's record, applied late, withdrawn")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3", "no local tag at another commit than origin's")
        #expect(try origin.repo.git("rev-parse", "HEAD") == origin.start)
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second release")
        #expect(origin.git("rev-parse", "refs/heads/main") == moved)

        // Said once: the next run stops only because origin has v1.3.0 at another commit.
        let again = try await origin.shiplane(RefusedPushTests.release)
        #expect(again.status == 1, "\(again.all)")
        #expect(!again.all.contains("applied part of a push after all"), "\(again.all)")
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second release")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3")

        // The team drops the stray tag on origin; the next release makes 1.3.0 once, on main.
        #expect(origin.git("tag", "-d", "v1.3.0") != nil)
        try pull(origin)
        let released = try await origin.shiplane(RefusedPushTests.release)
        #expect(released.status == 0, "\(released.all)")
        let release = try origin.repo.git("rev-parse", "HEAD")
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release && origin.git("rev-parse", "refs/heads/main") == release)
        #expect(!FileManager.default.fileExists(atPath: origin.repo.path + "/.git/shiplane/may-still-land.json"), "nothing left to look for")
        #expect(!FileManager.default.fileExists(atPath: origin.repo.path + "/.git/shiplane/taken-back-records.json"), "no record left to look for")
    }

    /// Item 2, the plain case: killed while origin held the push, which origin then accepted
    /// whole. The same command finishes the run once: origin's release is the run's, no second one.
    @Test func aHeldPushOriginAcceptsAfterTheKillIsFinishedOnce() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        let hook = try HeldPush(origin, accept: true)
        var environment = origin.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = RefusedPushTests.token
        let run = try SupervisedRun(RefusedPushTests.release, in: origin.repo.path, environment: environment)
        run.wait { hook.isHeld }
        try run.killEverything()
        let release = try origin.repo.git("rev-parse", "HEAD")
        hook.letGo()
        for _ in 0..<100 where origin.git("rev-parse", "--verify", "-q", "refs/tags/v1.3.0") == nil { usleep(100_000) }
        try origin.removeHook("pre-receive")
        #expect(origin.git("rev-parse", "refs/heads/main") == release && origin.git("rev-parse", "v1.3.0^{commit}") == release)

        let again = try await origin.shiplane(RefusedPushTests.release)
        #expect(again.status == 0, "\(again.all)")
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second release")
        #expect(origin.git("rev-parse", "refs/heads/main") == release)
        #expect(try origin.repo.git("rev-parse", "HEAD") == release)
        #expect(try origin.repo.git("rev-parse", "v1.3.0^{commit}") == release, "the local tag is origin's")
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil)
    }

    /// The same race with the run alive: origin applied the tag and refused main (it had moved
    /// on), so v1.3.0 is published at a commit main does not hold. `resume` finishes the
    /// release, warning that main lacks its commit, instead of exiting 75 for ever.
    @Test func aTagPublishedWhileTheBranchMovedOnIsFinishedByResume() async throws {
        let origin = try await Origin()
        defer { origin.server.stop() }
        let hook = try HeldPush(origin, accept: true)
        var environment = origin.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = RefusedPushTests.token
        let run = try SupervisedRun(RefusedPushTests.release, in: origin.repo.path, environment: environment)
        run.wait { hook.isHeld }
        let moved = try moveOriginsMain(origin, released: false)
        hook.letGo()
        let ended = run.finish()
        try origin.removeHook("pre-receive")
        let release = try origin.repo.git("rev-parse", "HEAD")
        #expect(ended.status == 75, "origin accepted v1.3.0 and refused main: \(ended.all)")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == release && origin.git("rev-parse", "refs/heads/main") == moved)

        let resumed = try await origin.shiplane(["resume"])
        #expect(resumed.status == 0, "not 75 for ever: \(resumed.all)")
        #expect(resumed.all.contains("moved on"), "\(resumed.all)")
        #expect(resumed.all.contains("git merge v1.3.0"), "says how to bring the release commit into main: \(resumed.all)")
        #expect(!origin.hasLocalRecord)
        #expect(origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run") == nil)
        #expect(origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second release")
        #expect(try origin.repo.git("rev-parse", "v1.3.0^{commit}") == release, "the local tag is origin's")
        let still = try await origin.shiplane(["resume"])
        #expect(still.status != 75, "\(still.all)")
    }
}
