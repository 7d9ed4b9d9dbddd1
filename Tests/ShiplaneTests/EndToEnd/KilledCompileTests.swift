import Foundation
import Testing

/// A compile killed with SIGKILL (a cancelled CI job, the OOM killer) runs no cleanup: its staging
/// folder stays in the lane cache. The next compile removes what such compiles left, and never a
/// staging folder whose compile is still running.
@Suite("Staging folders of killed compiles are removed by the next compile", .serialized, .offThePool)
struct KilledCompileTests {
    @Test func theNextCompileRemovesWhatAKilledCompileLeft() throws {
        let repo = try repositoryWithLanes([
            "Lanes/Fresh.swift": "import Shiplane\n// \(UUID().uuidString)\nstruct Fresh: Lane { func run(_ lane: LaneContext) async throws {} }\n",
        ])
        let cache = repo.root + "/cache"
        var environment = repo.environment
        environment["SHIPLANE_CACHE_DIR"] = cache
        let entries = { (try? FileManager.default.contentsOfDirectory(atPath: cache + "/lanes")) ?? [] }
        let run = try SupervisedRun(["fresh"], in: repo.path, environment: environment)
        run.wait { entries().contains { $0.hasPrefix(".staging-") } }
        usleep(300_000)
        try run.killEverything()
        let left = entries().filter { $0.hasPrefix(".staging-") }
        try #require(left.count == 1, "the killed compile left its staging folder: \(entries())")
        // One left by a version that made no owner file, by a process that is gone.
        let old = cache + "/lanes/.staging-89abcdef-\(Int32.max - 1)-3"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)

        // A staging folder whose compile still runs (its owner lock held) is left alone.
        let live = cache + "/lanes/.staging-0123abcd-\(getpid())-7"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        let owner = open(live + "/.owner", O_CREAT | O_RDWR, 0o600)
        #expect(owner >= 0 && flock(owner, LOCK_EX) == 0 && write(owner, "1", 1) == 1)
        defer { close(owner) }

        let again = try repo.shiplane(["fresh"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(again.status == 0, "\(again.all)")
        #expect(entries().filter { $0.hasPrefix(".staging-") } == [(live as NSString).lastPathComponent], "\(entries())")
    }
}
