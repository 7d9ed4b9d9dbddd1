import Foundation
import Testing

/// Lanes that block their thread, or run a command (started directly, no shell) that says what
/// it has blocked and traps TERM; compiled once per repository.
private let signalLanes: [String: String] = [
    "Lanes/Signals.swift": #"""
    import Foundation
    import Shiplane

    struct Mark: Action {
        static let name = "mark"
        var path: String
        func run(in step: StepContext) throws { try step.writeFile(Data("x".utf8), to: path) }
    }

    /// Lane code that blocks its thread: cancelling the run cannot reach it.
    struct Blocks: Lane {
        func run(_ lane: LaneContext) async throws {
            try lane.run(Mark(path: lane.workingDirectory + "/mark.txt"))
            sleep(30)
        }
    }

    /// A command that writes its blocked-signal mask, then waits for TERM and writes that it came.
    struct Trapping: Lane {
        func run(_ lane: LaneContext) async throws {
            try lane.run(Mark(path: lane.workingDirectory + "/mark.txt"))
            try await lane.sh("perl", "-e", """
            open(my $s, "<", "/proc/self/status") or die; my ($b) = grep { /^SigBlk:/ } <$s>;
            open(my $o, ">", "sigblk.txt") or die; print $o $b; close $o;
            $SIG{TERM} = sub { open(my $t, ">", "trapped.txt"); print $t "TERM\\n"; close $t; exit 0 };
            open(my $r, ">", "ready.txt"); close $r;
            sleep 30;
            """)
        }
    }
    """#,
]

/// True while `pid` is a process that has not ended (a zombie has ended).
func processIsRunning(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let afterName = stat.range(of: ") ", options: .backwards) else { return true }
    return !stat[afterName.upperBound...].hasPrefix("Z")
}

/// Polls `condition` every 50 ms for at most `seconds`; whether it came true.
func eventually(within seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(50_000)
    }
    return condition()
}

@Suite("Signals: shiplane and its lane program live and die together; commands get a clean mask", .serialized, .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct SignalTests {
    /// A repository with the signal lanes, compiled.
    private func repository() throws -> TemporaryRepository {
        let repo = try repositoryWithLanes(signalLanes)
        #expect(try repo.shiplane(["lanes"]).status == 0)
        return repo
    }

    /// Starts `shiplane LANE` and waits until the lane has written its mark.
    private func started(_ lane: String, in repo: TemporaryRepository) throws -> SupervisedRun {
        let run = try SupervisedRun([lane], in: repo.path, environment: repo.environment)
        run.wait { FileManager.default.fileExists(atPath: repo.path + "/mark.txt") }
        return run
    }

    /// `kill -9` of `shiplane` alone: the lane program dies with it (it used to carry on,
    /// reparented to init, holding the lock: `shiplane rollback` then exited 6).
    @Test func killingShiplaneKillsItsLaneProgramAndRollbackSettlesTheRun() throws {
        let repo = try repository()
        let run = try started("blocks", in: repo)
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        try #require(lanePrograms.count == 1)
        kill(run.pid, SIGKILL)
        // Checked before reading the supervisor's output to its end: a lane program that lived on
        // would hold that pipe open until its lane finished.
        #expect(eventually(within: 5) { !lanePrograms.contains(where: processIsRunning) }, "the lane program outlived its supervisor")
        _ = run.finish()
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/mark.txt"), "\(rollback.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
    }

    /// The same command again after `kill -9` of `shiplane` finds the dead run's record, not a
    /// live run holding the lock (exit 6).
    @Test func afterKillingShiplaneTheSameCommandIsNotRefused() throws {
        let repo = try repository()
        let run = try started("blocks", in: repo)
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        kill(run.pid, SIGKILL)
        // Checked before reading the supervisor's output to its end: a lane program that lived on
        // would hold that pipe open until its lane finished.
        #expect(eventually(within: 5) { !lanePrograms.contains(where: processIsRunning) }, "the lane program outlived its supervisor")
        _ = run.finish()
        // Resumed, then interrupted at once: what matters is that it was not refused as locked.
        let again = try SupervisedRun(["blocks"], in: repo.path, environment: repo.environment)
        let resumed = eventually(within: 20) { (try? again.lanePrograms().isEmpty == false) ?? false }
        kill(again.pid, SIGTERM)
        let ended = again.finish()
        #expect(resumed && ended.status == 130, "\(ended.all)")
        #expect(!ended.all.contains("another run"), "\(ended.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/mark.txt"), "\(ended.all)")
    }

    /// SIGTERM, SIGINT or SIGHUP to `shiplane` while lane code blocks in `sleep(30)`: the lane
    /// program gets the grace period, then SIGKILL, and the run is rolled back from its record.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalEndsARunWhoseLaneCodeBlocks(_ signal: Int32) throws {
        let repo = try repository()
        let run = try started("blocks", in: repo)
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        let sent = Date()
        kill(run.pid, signal)
        let ended = run.finish()
        #expect(Date().timeIntervalSince(sent) < 10, "ended \(Date().timeIntervalSince(sent)) s after the signal; the lane blocks for 30 s")
        #expect(ended.status == 130, "\(ended.all)")
        #expect(ended.all.contains("did not stop within 5.00 s"), "\(ended.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/mark.txt"), "rolled back from the record: \(ended.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
    }

    /// Ctrl-C at a terminal reaches the lane program's process group, not `shiplane`: the lane
    /// program tells its supervisor, which then gives it the same grace period.
    @Test func anInterruptThatReachesOnlyTheLaneProgramEndsABlockedRunToo() throws {
        let repo = try repository()
        let run = try started("blocks", in: repo)
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        try #require(lanePrograms.count == 1)
        let sent = Date()
        for pid in lanePrograms { kill(-pid, SIGINT) }
        let ended = run.finish()
        #expect(Date().timeIntervalSince(sent) < 10, "ended \(Date().timeIntervalSince(sent)) s after Ctrl-C; the lane blocks for 30 s")
        #expect(ended.status == 130, "\(ended.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/mark.txt"), "\(ended.all)")
    }

    /// A command started by `lane.sh` directly (perl, which leaves its signal mask alone) has
    /// nothing blocked, and Ctrl-C to `shiplane` reaches its own TERM handler.
    @Test func aCommandHasNothingBlockedAndItsTermHandlerRuns() throws {
        let repo = try repository()
        let run = try started("trapping", in: repo)
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        run.wait { FileManager.default.fileExists(atPath: repo.path + "/ready.txt") }
        kill(run.pid, SIGINT)
        let ended = run.finish()
        #expect(repo.read("sigblk.txt") == "SigBlk:\t0000000000000000\n", "\(ended.all)")
        #expect(repo.read("trapped.txt") == "TERM\n", "the command's TERM handler ran: \(ended.all)")
        #expect(ended.status == 130, "\(ended.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/mark.txt"), "\(ended.all)")
    }

    /// A pre-commit hook (perl, which leaves its signal mask alone) has nothing blocked, and
    /// SIGTERM to `shiplane` stops it through its own handler instead of waiting for it.
    @Test func aSlowGitHookIsInterruptedThroughItsOwnHandler() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Commit.swift", """
        import Shiplane
        struct Commit: Lane {
            func run(_ lane: LaneContext) async throws {
                _ = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        #expect(try repo.shiplane(["lanes"]).status == 0)
        let hook = repo.path + "/.git/hooks/pre-commit"
        try repo.write(".git/hooks/pre-commit", """
        #!/usr/bin/perl
        open(my $s, "<", "/proc/self/status") or die; my ($b) = grep { /^SigBlk:/ } <$s>;
        open(my $o, ">", "../hook-sigblk.txt") or die; print $o $b; close $o;
        $SIG{TERM} = sub { open(my $t, ">", "../hook-trapped.txt"); print $t "TERM\\n"; close $t; exit 1 };
        open(my $r, ">", "../hook-ready.txt"); close $r;
        sleep 30;
        """)
        chmod(hook, 0o755)
        let run = try SupervisedRun(["commit"], in: repo.path, environment: repo.environment)
        run.wait { FileManager.default.fileExists(atPath: repo.root + "/hook-ready.txt") }
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        let sent = Date()
        kill(run.pid, SIGTERM)
        let ended = run.finish()
        #expect(Date().timeIntervalSince(sent) < 10, "ended \(Date().timeIntervalSince(sent)) s after SIGTERM; the hook sleeps 30 s")
        #expect(ended.status == 130, "\(ended.all)")
        let sigblk = FileManager.default.contents(atPath: repo.root + "/hook-sigblk.txt").map { String(decoding: $0, as: UTF8.self) }
        #expect(sigblk == "SigBlk:\t0000000000000000\n", "\(ended.all)")
        #expect(FileManager.default.fileExists(atPath: repo.root + "/hook-trapped.txt"), "the hook's TERM handler ran: \(ended.all)")
        #expect(repo.read("VERSION") == "1.2.3\n", "\(ended.all)")
    }

    /// SIGTERM or SIGHUP while the lanes compile is an interrupt (130), not a death by that signal
    /// (143, 129): the staging folder is removed, nothing is published, and the next run compiles.
    @Test(arguments: [SIGTERM, SIGHUP])
    func aSignalDuringTheCompileExits130AndLeavesTheCacheClean(_ signal: Int32) throws {
        let repo = try repositoryWithLanes([
            "Lanes/Fresh.swift": "import Shiplane\n// \(UUID().uuidString)\nstruct Fresh: Lane { func run(_ lane: LaneContext) async throws {} }\n",
        ])
        let cache = repo.root + "/cache"
        // A first compile's length (its C modules built too), so the signal lands while it runs.
        var environment = coldModuleCache(repo.environment)
        environment["SHIPLANE_CACHE_DIR"] = cache
        let entries = { (try? FileManager.default.contentsOfDirectory(atPath: cache + "/lanes")) ?? [] }
        let run = try SupervisedRun(["fresh"], in: repo.path, environment: environment)
        run.wait { entries().contains { $0.hasPrefix(".staging-") } }
        try #require(entries().contains { $0.hasPrefix(".staging-") })
        usleep(300_000)
        kill(run.pid, signal)
        let ended = run.finish()
        #expect(ended.status == 130, "\(ended.all)")
        #expect(ended.all.contains("interrupted while compiling Lanes/"), "\(ended.all)")
        #expect(entries().isEmpty, "no staging folder and nothing published: \(entries())")
        let again = try repo.shiplane(["fresh"], environment: ["SHIPLANE_CACHE_DIR": cache])
        #expect(again.status == 0, "\(again.all)")
    }

    /// Past the point of no return (the push), a blocked lane killed after the grace period is
    /// not undone: exit 75, and `shiplane resume` finishes the release.
    @Test func aBlockedRunKilledPastItsPushIsLeftForResume() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        try repo.write("Lanes/Ship.swift", """
        import Foundation
        import Shiplane
        struct Ship: Lane {
            func run(_ lane: LaneContext) async throws {
                let version = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
                try lane.addGitTag("v\\(version)")
                try await lane.push(tags: ["v\\(version)"])
                if ProcessInfo.processInfo.environment["SHIPLANE_TEST_BLOCK"] == "1" {
                    FileManager.default.createFile(atPath: lane.workingDirectory + "/../pushed.txt", contents: nil)
                    sleep(30)
                }
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        #expect(try repo.shiplane(["lanes"]).status == 0)
        var environment = repo.environment
        environment["SHIPLANE_TEST_BLOCK"] = "1"
        let run = try SupervisedRun(["ship"], in: repo.path, environment: environment)
        run.wait { FileManager.default.fileExists(atPath: repo.root + "/pushed.txt") }
        let lanePrograms = try run.lanePrograms()
        defer { for pid in lanePrograms where processIsRunning(pid) { kill(-pid, SIGKILL) } }
        let sent = Date()
        kill(run.pid, SIGTERM)
        let ended = run.finish()
        #expect(Date().timeIntervalSince(sent) < 10, "ended \(Date().timeIntervalSince(sent)) s after SIGTERM; the lane blocks for 30 s")
        #expect(ended.status == 75, "\(ended.all)")
        #expect(try origin.git("tag", "--list").contains("v1.3.0"), "the pushed tag stays")
        let resumed = try repo.shiplane(["resume"])
        #expect(resumed.status == 0, "\(resumed.all)")
        #expect(try repo.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(repo.read("VERSION") == "1.3.0\n")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(resumed.all)")
    }
}
