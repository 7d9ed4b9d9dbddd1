import Foundation
import Testing

/// A lane with its own effect type, as the README shows one: the action records a stamp file,
/// writes it, then the lane waits (to be killed) or fails.
private let customEffectLane = #"""
import Foundation
import Shiplane

struct StampWritten: Effect {
    static let kind = "acme.stampWritten"
    var path: String
    var reach: EffectReach { .local }
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        try context.fileSystem.remove(path)
        // Which process undid it: the run's own, or another one (the supervisor's, rollback's).
        try context.fileSystem.write(Data("\(getpid())".utf8), to: path + ".undone-by")
    }
}

struct KeptForever: Effect {
    static let kind = "acme.keptForever"
    var reach: EffectReach { .service }
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("the announcement to the moon stays")
    }
}

struct Stamp: Action {
    static let name = "stamp"
    var path: String
    func run(in step: StepContext) throws {
        let handle = try step.record(StampWritten(path: step.lane.workingDirectory + "/" + path), "remove \(path)")
        try step.lane.fileSystem.write(Data("stamped".utf8), to: step.lane.workingDirectory + "/" + path)
        step.done(handle)
        let kept = try step.record(KeptForever(), "announce")
        step.done(kept)
    }
}

struct Stamped: Lane {
    @Option var then: String = "fail"
    func run(_ lane: LaneContext) async throws {
        try lane.run(Stamp(path: "STAMP"))
        FileManager.default.createFile(atPath: lane.workingDirectory + "/.git/stamped-pid", contents: Data("\(getpid())".utf8))
        if then == "wait" { try await lane.sh("sh", "-c", "echo $$ > .git/sleep-pid; exec sleep 60") }
        throw ShiplaneError("the lane fails after the stamp")
    }
}
"""#

/// Lane code's own effect types are undone by their one undo after a kill of the lane program
/// (by the supervisor) and by `shiplane rollback` in another process, not only in the run: the
/// lane program is asked to undo what only it can decode.
@Suite("Lane code's own effects: undone in the run, after a kill and by shiplane rollback", .serialized, .offThePool)
struct LaneEffectUndoTests {
    func repository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        try repo.write("Lanes/Stamped.swift", customEffectLane)
        try repo.write(".gitignore", "STAMP*\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        return repo
    }

    /// The pid the lane's `sh` wrote, once the whole line is there (the shell creates the file
    /// before it writes to it).
    func sleepPid(_ repo: TemporaryRepository) -> pid_t? {
        pid_t((repo.read(".git/sleep-pid") ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func undoneInTheRun() async throws {
        let repo = try repository()
        let run = try await repo.shiplaneAsync(["stamped"])
        #expect(run.status == 1, "\(run.all)")
        #expect(repo.read("STAMP") == nil, "\(run.all)")
        #expect(repo.read("STAMP.undone-by") == repo.read(".git/stamped-pid"), "the run's own process undid it")
        #expect(run.all.contains("the announcement to the moon stays"), "\(run.all)")
    }

    @Test func undoneByTheSupervisorAfterTheLaneProgramIsKilled() async throws {
        let repo = try repository()
        let run = try SupervisedRun(["stamped", "--then", "wait"], in: repo.path, environment: repo.environment)
        run.wait { sleepPid(repo) != nil && repo.read("STAMP") != nil }
        let command = try #require(sleepPid(repo), "the lane never started its command")
        #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        // The command the killed lane program had started is stopped too, not left running.
        #expect(kill(command, 0) == -1 && errno == ESRCH, "the lane's `sleep 60` (pid \(command)) outlived its lane program")
        #expect(repo.read("STAMP") == nil, "the stamp was undone after the kill: \(all)")
        let undoneBy = try #require(repo.read("STAMP.undone-by"), "\(all)")
        #expect(undoneBy != repo.read(".git/stamped-pid"), "another process than the killed one undid it")
        #expect(all.contains("the announcement to the moon stays"), "\(all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "the run is settled: \(all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/undo-effect.json"))
    }

    @Test func undoneByShiplaneRollback() async throws {
        let repo = try repository()
        let failed = try await repo.shiplaneAsync(["stamped", "--no-rollback"])
        #expect(failed.status == 1, "\(failed.all)")
        #expect(repo.read("STAMP") == "stamped", "--no-rollback kept the stamp")
        let rollback = try await repo.shiplaneAsync(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(rollback.all.contains("undone: remove STAMP"), "\(rollback.all)")
        #expect(rollback.all.contains("stays: the announcement to the moon stays"), "\(rollback.all)")
        #expect(repo.read("STAMP") == nil, "\(rollback.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(rollback.all)")
    }

    @Test func aRenamedEffectTypeIsKeptAndSaidSo() async throws {
        let repo = try repository()
        let failed = try await repo.shiplaneAsync(["stamped", "--no-rollback"])
        #expect(failed.status == 1, "\(failed.all)")
        // The lane files change before the rollback: the effect's type is no longer declared.
        try repo.write("Lanes/Stamped.swift", customEffectLane.replacingOccurrences(of: "acme.stampWritten", with: "acme.stampWritten2"))
        let rollback = try await repo.shiplaneAsync(["rollback"])
        #expect(rollback.status == 1, "\(rollback.all)")
        #expect(rollback.all.contains("no effect type of kind acme.stampWritten is declared in Lanes/"), "\(rollback.all)")
        #expect(repo.read("STAMP") == "stamped", "nothing is undone blindly")
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "the record is kept for another try")
    }
}
