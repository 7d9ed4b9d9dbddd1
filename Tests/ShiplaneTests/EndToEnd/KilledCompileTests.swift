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
        // A first compile's length (its C modules built too), so the kill lands while it runs.
        var environment = coldModuleCache(repo.environment)
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

    /// Two runs of lanes not yet compiled, started together (parallel CI jobs or test processes
    /// sharing a cache): the second waits for the first's compile and takes its program, so the
    /// compiler runs once.
    @Test func twoRunsOfNewLanesCompileThemOnce() throws {
        let (repo, environment, gate) = try gatedCompile()
        // The same lanes in another repository (one repository runs one lane at a time).
        let other = try repositoryWithLanes(["Lanes/Fresh.swift": try #require(repo.read("Lanes/Fresh.swift"))])
        let first = try SupervisedRun(["fresh"], in: repo.path, environment: environment)
        first.wait { gate.compiles() == 1 }
        let second = try SupervisedRun(["fresh"], in: other.path, environment: environment)
        usleep(500_000)
        try FileManager.default.removeItem(atPath: gate.hold)
        let (one, two) = (first.finish(), second.finish())
        #expect(one.status == 0 && two.status == 0, "\(one.all)\n\(two.all)")
        #expect(gate.compiles() == 1, "the second run waited for the first compile instead of compiling again")
    }

    /// A run waiting for a compile that is killed (SIGKILL runs no cleanup) is not blocked by
    /// it: the lock goes with the killed process, and the waiting run compiles the lanes itself.
    @Test func aRunWaitingForAKilledCompileCompilesItself() throws {
        let (repo, environment, gate) = try gatedCompile()
        let other = try repositoryWithLanes(["Lanes/Fresh.swift": try #require(repo.read("Lanes/Fresh.swift"))])
        let first = try SupervisedRun(["fresh"], in: repo.path, environment: environment)
        first.wait { gate.compiles() == 1 }
        let second = try SupervisedRun(["fresh"], in: other.path, environment: environment)
        usleep(500_000)
        try first.killEverything()
        try FileManager.default.removeItem(atPath: gate.hold)
        let two = second.finish()
        #expect(two.status == 0, "\(two.all)")
        #expect(gate.compiles() == 2, "the waiting run compiled after the killed one")
        let staging = ((try? FileManager.default.contentsOfDirectory(atPath: environment["SHIPLANE_CACHE_DIR", default: ""] + "/lanes")) ?? []).filter { $0.hasPrefix(".staging-") }
        #expect(staging.isEmpty, "the killed compile's staging folder was removed: \(staging)")
    }

    /// A repository with new lanes, its own cache, and a `swiftc` that logs each lane compile and
    /// holds it while the `hold` file exists (then goes on with the real compiler, unless the run
    /// that started it is gone).
    private func gatedCompile() throws -> (TemporaryRepository, [String: String], (hold: String, compiles: () -> Int)) {
        let repo = try repositoryWithLanes([
            "Lanes/Fresh.swift": "import Shiplane\n// \(UUID().uuidString)\nstruct Fresh: Lane { func run(_ lane: LaneContext) async throws {} }\n",
        ])
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let real = try #require(path.split(separator: ":").map { $0 + "/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) })
        let (log, hold, wrapper) = (repo.root + "/compiles.log", repo.root + "/hold", repo.root + "/swiftc")
        try Data("""
            #!/bin/sh
            case "$*" in *-module-name*)
              echo compile >> '\(log)'
              while [ -f '\(hold)' ]; do sleep 0.1; done
              kill -0 "$PPID" 2>/dev/null || exit 1 ;;
            esac
            exec '\(real)' "$@"

            """.utf8).write(to: URL(fileURLWithPath: wrapper))
        chmod(wrapper, 0o755)
        try Data().write(to: URL(fileURLWithPath: hold))
        var environment = repo.environment
        environment["SHIPLANE_CACHE_DIR"] = repo.root + "/cache"
        environment["SHIPLANE_SWIFTC"] = wrapper
        let compiles = { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count }
        return (repo, environment, (hold, compiles))
    }
}
