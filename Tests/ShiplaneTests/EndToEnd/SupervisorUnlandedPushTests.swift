import Foundation
import Testing

/// Issue 37: the supervisor (the `shiplane` process that runs the compiled lane program) settles a
/// killed lane program's run with the same unlanded-push check as `resume` and `rollback`. Origin's
/// hook holds the release push; meanwhile another runner releases 1.3.0; the lane program alone is
/// killed. Origin holds other objects under every ref the push sent, so the push can never land:
/// the supervisor rolls the run back and says so, instead of leaving it past a point of no return
/// (exit 75, then a `resume` that can only fail). Runs the built `shiplane`.
@Suite("The supervisor checks a killed lane program's push against origin, as resume does", .serialized, .offThePool)
struct SupervisorUnlandedPushTests {
    static let lane = #"""
    import Shiplane

    struct Ship: Lane {
        func run(_ lane: LaneContext) async throws {
            let version = try lane.bumpVersion(.minor)
            try lane.commitVersionBump()
            try lane.addGitTag("v\(version)")
            try await lane.push(tags: ["v\(version)"])
        }
    }
    """#

    @Test func aKilledLaneProgramsPushThatCanNeverLandIsRolledBackByTheSupervisor() async throws {
        let origin = try await RefusedPushTests.Origin()
        defer { origin.server.stop() }
        try origin.repo.write("Lanes/Ship.swift", Self.lane)
        try origin.repo.git("add", "Lanes/Ship.swift")
        try origin.repo.git("commit", "-q", "-m", "chore: lanes")
        try origin.repo.git("push", "-q", origin.bare, "main")
        let start = try origin.repo.git("rev-parse", "HEAD")
        var environment = origin.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = RefusedPushTests.token
        // Compiled and cached first: the run below reaches origin's hook at once.
        let lanes = try await origin.shiplane(["lanes"])
        #expect(lanes.status == 0, "\(lanes.all)")

        // The first push is held until `go`, then refused; the other runner's push goes through.
        let held = origin.repo.root + "/held", go = origin.repo.root + "/go", refused = origin.repo.root + "/refused"
        try origin.hook("pre-receive", """
            [ -e '\(held)' ] && exit 0
            touch '\(held)'
            for i in $(seq 1 300); do [ -e '\(go)' ] && break; sleep 0.1; done
            echo 'refused after holding the push' >&2
            touch '\(refused)'
            exit 1
            """)
        let run = try SupervisedRun(["ship"], in: origin.repo.path, environment: environment)
        run.wait { FileManager.default.fileExists(atPath: held) }
        #expect(FileManager.default.fileExists(atPath: held), "the push reached origin's hook")

        // Another runner releases 1.3.0 from a fresh clone while this run's push is held.
        let clone = origin.repo.root + "/clone"
        try runProgram("/usr/bin/git", ["clone", "-q", origin.bare, clone], in: origin.repo.root, environment: environment)
        try Data("1.3.0\n".utf8).write(to: URL(fileURLWithPath: clone + "/VERSION"))
        for arguments in [["commit", "-q", "-am", "chore(release): 1.3.0 from CI"], ["tag", "-a", "v1.3.0", "-m", "Release 1.3.0"],
                          ["push", "-q", "origin", "main", "v1.3.0"]] {
            let done = try runProgram("/usr/bin/git", arguments, in: clone, environment: environment)
            #expect(done.status == 0, "\(done.all)")
        }
        let winner = try #require(origin.git("rev-parse", "refs/heads/main"))
        #expect(winner != start)

        #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
        let ended = run.finish()
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        run.wait { FileManager.default.fileExists(atPath: refused) }
        #expect(FileManager.default.fileExists(atPath: refused), "origin's hook refused the held push")

        #expect(ended.status != 75, "not left for a resume that can only fail: \(ended.all)")
        #expect(!ended.all.contains("shiplane resume"), "\(ended.all)")
        #expect(ended.all.contains("origin never accepted this run's push"), "\(ended.all)")
        #expect(ended.all.contains("v1.3.0 at \(winner.prefix(7))"), "names the winner: \(ended.all)")
        #expect(origin.repo.read("VERSION") == "1.2.3\n")
        #expect(try origin.repo.git("rev-parse", "HEAD") == start, "the release commit is undone")
        #expect(try origin.repo.git("tag", "--list") == "v1.2.3", "no local v1.3.0 at another commit than origin's")
        #expect(try origin.repo.git("status", "--porcelain", "--untracked-files=no").isEmpty)
        #expect(!origin.hasLocalRecord, "the run is settled")
        #expect((try? origin.repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil)
        #expect(origin.git("rev-parse", "refs/heads/main") == winner, "origin keeps the other runner's release")
        #expect(origin.git("rev-parse", "v1.3.0^{commit}") == winner)
    }
}
