import Foundation
import Testing

/// `.git/index.lock` at the start of a run: one a Shiplane run killed while libgit2 wrote the
/// index left is removed and the run resumed; one another program holds stops the run, naming
/// the file, with nothing changed (issue 42). The real binary, SIGKILLed; git as the oracle.
@Suite("A stale index lock from a killed run, a live one from git", .serialized, .offThePool)
struct StaleIndexLockTests {
    private static let command = ["bump", "patch", "--commit"]

    /// A copy of `bigIndexRepository`, made once in the test process: each trial kills a run in
    /// a repository of its own, and `git add` of 20,000 files each time cost most of the test's
    /// time. The copy's index is refreshed (`cp -a` keeps modification times, not inodes or
    /// change times), so each trial's run starts from an index git agrees is clean, as in a
    /// repository just made.
    private func bigIndexRepositoryCopy() throws -> TemporaryRepository {
        let repo = try TemporaryRepository(copying: try TemporaryRepository.template("StaleIndexLockTests") { try Self.bigIndexRepository() })
        try repo.git("update-index", "-q", "--refresh")
        return repo
    }

    /// A repository at 1.2.3 with an index of some megabytes (20,000 files with long paths), so
    /// libgit2's write of it lasts long enough to be killed inside.
    private static func bigIndexRepository() throws -> TemporaryRepository {
        let repo = try versionedRepository()
        let long = String(repeating: "nested-folder-name/", count: 7)
        for folder in 0..<100 {
            try FileManager.default.createDirectory(atPath: repo.path + "/data/\(long)f\(folder)", withIntermediateDirectories: true)
            for file in 0..<200 {
                try Data("\(folder)-\(file)\n".utf8).write(to: URL(fileURLWithPath: repo.path + "/data/\(long)f\(folder)/file-with-a-long-name-\(file).txt"))
            }
        }
        try repo.git("add", "data")
        try repo.git("commit", "-q", "-m", "chore: data")
        return repo
    }

    /// Starts the bump, waits for `.git/index.lock` (looking without a pause: the write takes
    /// milliseconds), and SIGKILLs shiplane and its children's process groups. Its exit code,
    /// nil when the kill ended it.
    private func runAndKillInsideTheIndexWrite(_ repo: TemporaryRepository) throws -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shiplaneBinary)
        process.arguments = Self.command
        process.currentDirectoryURL = URL(fileURLWithPath: repo.path)
        process.environment = repo.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let lock = repo.path + "/.git/index.lock"
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, access(lock, F_OK) != 0, Date() < deadline {}
        if process.isRunning {
            let children = try runProgram("/usr/bin/pgrep", ["-P", "\(process.processIdentifier)"], in: repo.path, environment: repo.environment)
            kill(process.processIdentifier, SIGKILL)
            for pid in children.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(-pid, SIGKILL); kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    /// The bump SIGKILLed while libgit2 writes the index (`index.lock` there, with Shiplane's word
    /// of its pid beside it), then the same command: it removes the stale lock, resumes and
    /// commits 1.2.4 once; git finds a clean tree and a sound repository. Up to 8 trials until a
    /// kill lands inside the write; at least one must.
    @Test func aLockLeftByARunKilledInsideTheIndexWriteIsRemovedByTheResume() throws {
        var landed = 0
        for _ in 0..<8 where landed == 0 {
            let repo = try bigIndexRepositoryCopy()
            let start = try repo.git("rev-parse", "HEAD")
            let tracked = try repo.git("ls-files").split(separator: "\n").count
            let killed = try runAndKillInsideTheIndexWrite(repo)
            let lock = repo.path + "/.git/index.lock"
            guard killed == nil, FileManager.default.fileExists(atPath: lock) else { continue }
            landed += 1
            #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane-index-writer"), "the killed run's word beside the lock")
            #expect(try repo.git("rev-parse", "HEAD") == start, "killed before its commit")

            let again = try repo.shiplane(Self.command)
            #expect(again.status == 0, "\(again.all)")
            #expect(again.all.contains("removed \(repo.path)/.git/index.lock, which a Shiplane run (pid "), "\(again.all)")
            #expect(again.all.contains("killed while it wrote the index left"), "\(again.all)")
            #expect(!FileManager.default.fileExists(atPath: lock) && !FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane-index-writer"))
            #expect(try repo.git("rev-parse", "HEAD^") == start, "one commit on top of the start")
            #expect(try repo.git("show", "HEAD:VERSION") == "1.2.4")
            #expect(try repo.git("status", "--porcelain") == "", "a clean tree")
            #expect(try repo.git("ls-files").split(separator: "\n").count == tracked, "every file still in the index: \(tracked) before the kill")
            let fsck = try runProgram("/usr/bin/git", ["fsck", "--strict"], in: repo.path, environment: repo.environment)
            #expect(fsck.status == 0, "\(fsck.all)")
        }
        #expect(landed == 1, "no kill of 8 landed inside the index write")
    }

    /// `git commit -a` waiting for its editor holds `.git/index.lock`: a bump stops before any
    /// change with exit 6, naming the file and what to do; the lock is git's still, and once git
    /// is gone and the lock with it, the bump runs.
    @Test func aLockALiveGitHoldsStopsTheRunNamingTheFile() throws {
        let repo = try versionedRepository()
        try repo.write("notes.txt", "first\n")
        try repo.git("add", "notes.txt")
        try repo.git("commit", "-q", "-m", "docs: notes")
        let start = try repo.git("rev-parse", "HEAD")
        try repo.write("notes.txt", "edited\n")
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["commit", "-a"]
        git.currentDirectoryURL = URL(fileURLWithPath: repo.path)
        git.environment = repo.environment.merging(["GIT_EDITOR": "sleep 60;:"]) { $1 }
        git.standardOutput = FileHandle.nullDevice
        git.standardError = FileHandle.nullDevice
        try git.run()
        defer {
            if let children = try? runProgram("/usr/bin/pgrep", ["-P", "\(git.processIdentifier)"], in: repo.path, environment: repo.environment) {
                for pid in children.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            }
            kill(git.processIdentifier, SIGKILL)
            git.waitUntilExit()
        }
        let lock = repo.path + "/.git/index.lock"
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: lock) { usleep(50_000) }
        #expect(FileManager.default.fileExists(atPath: lock), "git holds the index lock while its editor runs")

        let stopped = try repo.shiplane(Self.command)
        #expect(stopped.status == 6, "\(stopped.all)")
        #expect(stopped.all.contains("\(lock) exists: another program is using this repository's index"), "\(stopped.all)")
        #expect(stopped.all.contains("wait for the other program to finish"), "\(stopped.all)")
        #expect(FileManager.default.fileExists(atPath: lock), "git's lock is left alone")
        #expect(try repo.git("rev-parse", "HEAD") == start && repo.read("VERSION") == "1.2.3\n", "nothing changed")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "no run recorded")
    }
}
