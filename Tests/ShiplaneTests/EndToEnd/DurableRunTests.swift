import Foundation
import Testing
import Shiplane

/// What a release can change, read with the git command: work tree files, refs here and on origin.
private struct ReleaseState: Equatable, CustomStringConvertible {
    var version: String?
    var packageJSON: String?
    var head: String
    var tags: String
    var originMain: String
    var originTags: String
    var status: String

    init(_ repo: TemporaryRepository, origin: TemporaryRepository) throws {
        version = repo.read("VERSION")
        packageJSON = repo.read("package.json")
        head = try repo.git("rev-parse", "HEAD")
        tags = try repo.git("tag", "--list")
        originMain = try origin.git("rev-parse", "refs/heads/main")
        originTags = try origin.git("tag", "--list")
        status = try repo.git("status", "--porcelain", "--untracked-files=all")
    }

    var description: String { "VERSION=\(version ?? "-") head=\(head.prefix(7)) tags=[\(tags)] origin=\(originMain.prefix(7)) [\(originTags)] status=[\(status)]" }
}

/// A versioned repository at 1.2.3 with a bare origin that holds main and v1.2.3: a copy of
/// one made once (the suite makes about a hundred; each starts from the same history).
private func releasableBump() throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
    let templateOrigin = try TemporaryRepository.template("DurableRunTests origin") { try TemporaryRepository(bare: true) }
    let template = try TemporaryRepository.template("DurableRunTests releasable") {
        let repo = try versionedRepository()
        try repo.git("remote", "add", "origin", templateOrigin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        return repo
    }
    let origin = try TemporaryRepository(copying: templateOrigin)
    let repo = try TemporaryRepository(copying: template, paths: [templateOrigin.path: origin.path])
    return (repo, origin)
}

private let release = ["bump", "minor", "--commit", "--tag", "--push"]

/// A repository with a `slow` lane (bumps the minor version, then sleeps), committed and compiled.
/// The seconds are in a committed file, `slow-seconds`, so every test's lane folder is the same
/// and compiles once.
private func repositoryWithSlowLane(sleeping seconds: String) throws -> TemporaryRepository {
    let (repo, _) = try releasableBump()
    try repo.write("Lanes/Slow.swift", """
    import Shiplane
    struct Slow: Lane {
        func run(_ lane: LaneContext) async throws {
            _ = try lane.bumpVersion(.minor)
            try await lane.sh("sh", "-c", "sleep \\"$(cat slow-seconds)\\"")
        }
    }
    """)
    try repo.write("slow-seconds", seconds + "\n")
    try repo.git("add", ".")
    try repo.git("commit", "-q", "-m", "chore: lanes")
    #expect(try repo.shiplane(["lanes"]).status == 0)
    return repo
}

/// Starts `shiplane ARGUMENTS` in the repository without waiting for it.
private func startShiplane(_ arguments: [String], in repo: TemporaryRepository) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: shiplaneBinary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: repo.path)
    process.environment = repo.environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// Waits (at most 10 s) until a run has written its record.
private func waitForRecord(in repo: TemporaryRepository) {
    for _ in 0..<200 where !FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json") { usleep(50_000) }
}

@Suite("Durable runs: killed at every step and effect, a run is rolled back or finished", .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct DurableRunTests {
    /// Exactly one release of 1.3.0: one commit on top of the start, tagged, pushed, clean.
    private func expectOneRelease(_ repo: TemporaryRepository, _ origin: TemporaryRepository, start: ReleaseState, _ context: String) throws {
        let state = try ReleaseState(repo, origin: origin)
        #expect(state.version == "1.3.0\n", "\(context): \(state)")
        #expect(state.tags == "v1.2.3\nv1.3.0", "\(context): \(state)")
        #expect(state.originTags == "v1.2.3\nv1.3.0", "\(context): \(state)")
        #expect(state.originMain == state.head, "\(context): \(state)")
        #expect(try repo.git("rev-parse", "HEAD~1") == start.head, "\(context): one commit on top of the start")
        #expect(try repo.git("rev-parse", "v1.3.0^{commit}") == state.head, "\(context): the tag is on the release commit")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore(release): 1.3.0", "\(context)")
        #expect(state.status.isEmpty, "\(context): \(state)")
        try repo.git("fsck", "--strict")
        try origin.git("fsck", "--strict")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(context): no record left")
    }

    /// SIGKILL (to the whole process group) at every moment of `bump minor --commit --tag --push`,
    /// then the same command again: always exactly one release of 1.3.0.
    @Test(arguments: ["after-step", "before-effect", "after-effect"])
    func killedAnywhereTheSameCommandFinishesTheRelease(_ moment: String) throws {
        var fired = 0
        for count in 1...12 {
            let (repo, origin) = try releasableBump()
            let start = try ReleaseState(repo, origin: origin)
            let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "\(moment):\(count)"])
            if killed.status == 0 {
                // Past the last moment of this kind: the run simply completed.
                try expectOneRelease(repo, origin, start: start, "\(moment):\(count) did not fire")
                break
            }
            fired += 1
            #expect(killed.status == SIGKILL, "\(moment):\(count): \(killed.all)")
            let again = try repo.shiplane(release)
            #expect(again.status == 0, "\(moment):\(count): \(again.all)")
            try expectOneRelease(repo, origin, start: start, "\(moment):\(count), then the same command")
        }
        #expect(fired >= 3, "the fault fired at several moments")
    }

    /// SIGTERM (what CI sends on cancel) and SIGINT (Ctrl-C) after every step: the run handles
    /// them — rolled back before the push (exit 130), left unfinished after it (exit 75) — and the
    /// same command again makes exactly one release.
    @Test(arguments: ["TERM", "INT"])
    func signalledAfterEveryStepTheSameCommandFinishesTheRelease(_ signal: String) throws {
        var fired = 0
        for count in 1...8 {
            let (repo, origin) = try releasableBump()
            let start = try ReleaseState(repo, origin: origin)
            let stopped = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:\(count):\(signal)"])
            if stopped.status == 0 {
                try expectOneRelease(repo, origin, start: start, "\(signal) after step \(count) did not stop it")
                continue
            }
            fired += 1
            let record = repo.read(".git/shiplane/run.json") ?? ""
            if record.contains("\"pointOfNoReturn\" : \"") {
                #expect(stopped.status == 75, "\(signal) after step \(count): \(stopped.all)")
            } else {
                #expect(stopped.status == 130, "\(signal) after step \(count): \(stopped.all)")
                #expect(try ReleaseState(repo, origin: origin) == start, "\(signal) after step \(count): rolled back")
            }
            let again = try repo.shiplane(release)
            #expect(again.status == 0, "\(signal) after step \(count): \(again.all)")
            try expectOneRelease(repo, origin, start: start, "\(signal) after step \(count), then the same command")
        }
        #expect(fired >= 3)
    }

    /// The same kills, then `shiplane rollback`: before the push everything is as it was; after
    /// it the release stays whole (tag on the commit, on origin) and nothing is half-undone.
    @Test(arguments: ["after-step", "before-effect", "after-effect"])
    func killedAnywhereRollbackRestoresOrKeepsAWholeRelease(_ moment: String) throws {
        for count in 1...12 {
            let (repo, origin) = try releasableBump()
            let start = try ReleaseState(repo, origin: origin)
            let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "\(moment):\(count)"])
            if killed.status == 0 { break }
            let pastNoReturn = (try? RunStore.forWorkTree(repo.path).load())??.pointOfNoReturn != nil
            let rollback = try repo.shiplane(["rollback"])
            #expect(rollback.status == 0, "\(moment):\(count): \(rollback.all)")
            let state = try ReleaseState(repo, origin: origin)
            if pastNoReturn {
                #expect(rollback.stdout.contains("stays"), "\(moment):\(count): \(rollback.all)")
                #expect(state.originTags == "v1.2.3\nv1.3.0" || state.originMain == start.originMain, "\(moment):\(count): \(state)")
                #expect(state.tags == "v1.2.3\nv1.3.0", "\(moment):\(count): \(state)")
                #expect(state.version == "1.3.0\n", "\(moment):\(count): \(state)")
            } else {
                #expect(state == start, "\(moment):\(count): \(state) vs \(start)\n\(rollback.all)")
            }
            try repo.git("fsck", "--strict")
            #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
            // And the repository releases normally afterwards.
            let next = try repo.shiplane(["bump", "patch"])
            #expect(next.status == 0, "\(moment):\(count): \(next.all)")
        }
    }

    /// A saved copy is written at once and synced with the intent that names it, in one group
    /// with the record (issue 36): SIGKILL between the two — the first copy before the record
    /// exists, the second after the first effect's intent — then the same command makes one
    /// release, or `shiplane rollback` puts everything back; either way no copy is left behind
    /// once a run ends.
    @Test func killedBetweenASavedCopyAndItsIntentTheRunFinishesOrRollsBack() throws {
        var fired = 0
        for count in 1...4 {
            for thenRollBack in [false, true] {
                let (repo, origin) = try releasableBump()
                let start = try ReleaseState(repo, origin: origin)
                let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-saved-copy:\(count)"])
                let context = "after-saved-copy:\(count)\(thenRollBack ? ", rollback" : "")"
                if killed.status == 0 {
                    try expectOneRelease(repo, origin, start: start, "\(context) did not fire")
                    continue
                }
                fired += 1
                #expect(killed.status == SIGKILL, "\(context): \(killed.all)")
                let copies = (try? FileManager.default.contentsOfDirectory(atPath: repo.path + "/.git/shiplane/saved")) ?? []
                #expect(copies.count == count, "\(context): the copies written before the kill: \(copies)")
                if thenRollBack {
                    let rollback = try repo.shiplane(["rollback"])
                    #expect(rollback.status == 0, "\(context): \(rollback.all)")
                    #expect(try ReleaseState(repo, origin: origin) == start, "\(context): \(rollback.all)")
                    try repo.git("fsck", "--strict")
                    let next = try repo.shiplane(["bump", "patch"])
                    #expect(next.status == 0 && repo.read("VERSION") == "1.2.4\n", "\(context): \(next.all)")
                } else {
                    let again = try repo.shiplane(release)
                    #expect(again.status == 0, "\(context): \(again.all)")
                    try expectOneRelease(repo, origin, start: start, "\(context), then the same command")
                }
                #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/saved"), "\(context): no copy left")
            }
        }
        #expect(fired == 4, "VERSION's and package.json's copies, each killed twice")
    }

    @Test func aSecondRunIsRefusedByTheLockAndTouchesNothing() throws {
        let repo = try repositoryWithSlowLane(sleeping: "3")
        let first = try startShiplane(["slow"], in: repo)
        waitForRecord(in: repo)
        let second = try repo.shiplane(["bump", "patch", "--commit"])
        first.waitUntilExit()
        #expect(second.status == 6, "\(second.all)")
        #expect(second.stderr.contains("another Shiplane run is in progress"), "\(second.stderr)")
        #expect(second.stderr.contains("shiplane slow") && second.stderr.contains("pid"), "\(second.stderr)")
        #expect(first.terminationStatus == 0)
        #expect(repo.read("VERSION") == "1.3.0\n", "the winner's write stands, the loser touched nothing")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore: lanes")
    }

    /// 20 trials of two runs started together: exactly one runs, the other is refused (exit 6)
    /// and touches nothing.
    @Test func twentyTrialsOfTwoRunsAtOnceEachRunExactlyOne() throws {
        let repo = try repositoryWithSlowLane(sleeping: "0.5")
        for trial in 1...20 {
            let runs = [try startShiplane(["slow"], in: repo), try startShiplane(["slow"], in: repo)]
            runs.forEach { $0.waitUntilExit() }
            let codes = runs.map(\.terminationStatus).sorted()
            #expect(codes == [0, 6], "trial \(trial): \(codes)")
            #expect(repo.read("VERSION") == "1.3.0\n", "trial \(trial): bumped exactly once")
            try repo.git("checkout", "--", "VERSION", "package.json")
        }
    }

    @Test func aRunInAnotherWorktreeOfTheRepositoryIsRefusedToo() throws {
        let repo = try repositoryWithSlowLane(sleeping: "2")
        try repo.git("worktree", "add", "-q", "-b", "other", repo.root + "/other")
        let first = try startShiplane(["slow"], in: repo)
        waitForRecord(in: repo)
        let second = try runProgram(shiplaneBinary, ["bump", "patch"], in: repo.root + "/other", environment: repo.environment)
        first.waitUntilExit()
        #expect(second.status == 6, "\(second.all)")
        #expect(second.stderr.contains("shiplane slow") && second.stderr.contains(repo.path), "\(second.stderr)")
        #expect(FileManager.default.contents(atPath: repo.root + "/other/VERSION").map { String(decoding: $0, as: UTF8.self) } == "1.2.3\n")
    }

    @Test func aKilledLaneProgramIsRolledBackByItsSupervisor() throws {
        let (repo, _) = try releasableBump()
        try repo.write("Lanes/Release.swift", """
        import Shiplane
        struct Release: Lane {
            func run(_ lane: LaneContext) async throws {
                let version = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
                try lane.addGitTag("v\\(version)")
                try await lane.sh("true")
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let head = try repo.git("rev-parse", "HEAD")
        // Killed after the tag: the lane program dies, the shiplane process undoes the run.
        let killed = try repo.shiplane(["release"], environment: ["SHIPLANE_FAULT": "after-step:3"])
        #expect(killed.status == 130, "\(killed.all)")
        #expect(killed.all.contains("SIGKILL"), "\(killed.all)")
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("tag", "--list") == "v1.2.3")
        #expect(try repo.git("status", "--porcelain").isEmpty)
        try repo.git("fsck", "--strict")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
    }

    @Test func exitInLaneCodeMidRunIsRolledBackToo() throws {
        let (repo, _) = try releasableBump()
        try repo.write("Lanes/Quit.swift", """
        import Foundation
        import Shiplane
        struct Quit: Lane {
            func run(_ lane: LaneContext) async throws {
                _ = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
                Foundation.exit(0)
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["quit"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("exited with code 0 in the middle of its run"), "\(result.all)")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("status", "--porcelain").isEmpty)
    }

    /// A CI retry starts from a fresh clone: the record pushed with the release finishes it there.
    @Test func aFreshCloneInCIFinishesTheReleaseKilledAfterItsPush() throws {
        let (repo, origin) = try releasableBump()
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect((try? origin.git("cat-file", "-t", "refs/shiplane/run")) == "commit", "the record went with the push")
        #expect((try? origin.git("show", "refs/shiplane/run:run.json"))?.contains("\"lane\" : \"bump\"") == true)
        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        let clone = fresh.path + "/clone"
        let again = try runProgram(shiplaneBinary, release, in: clone, environment: fresh.environment.merging(["CI": "true"]) { $1 })
        #expect(again.status == 0, "\(again.all)")
        #expect(again.stderr.contains("recorded on origin"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version")
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0,
                "a finished run deletes the record on origin")
        #expect(try runProgram("/usr/bin/git", ["log", "-1", "--format=%s"], in: clone, environment: fresh.environment).stdout == "chore(release): 1.3.0\n")
        try origin.git("fsck", "--strict")
        // Outside CI nothing is looked up on the remote (and a completed release leaves nothing).
        let next = try runProgram(shiplaneBinary, ["bump", "patch"], in: clone, environment: fresh.environment)
        #expect(next.status == 0, "\(next.all)")
    }

    /// The record pushed to origin holds no secret: command output is left out, known secrets are
    /// redacted.
    @Test func theRecordOnTheRemoteHoldsNoSecret() throws {
        let (repo, origin) = try releasableBump()
        try repo.write("Lanes/Ship.swift", """
        import Shiplane
        struct Ship: Lane {
            func run(_ lane: LaneContext) async throws {
                let echoed = try await lane.sh("sh", "-c", "echo $API_TOKEN")
                _ = try lane.bumpVersion(.minor)
                try lane.commitVersionBump(message: "Version bump (" + (lane.environment["API_TOKEN"] ?? "") + ")")
                try await lane.push()
                lane.log(echoed)
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let secret = "tok-" + "7c1e99d0aa42"
        let killed = try repo.shiplane(["ship"], environment: ["API_TOKEN": secret, "SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == 75, "\(killed.all)")
        let record = try origin.git("show", "refs/shiplane/run:run.json")
        #expect(record.contains("\"lane\" : \"ship\""), "\(record)")
        #expect(!record.contains(secret), "\(record)")
    }

    /// Rollback only undoes its own work: a file changed by hand since is kept and named, the
    /// record stays for another try, and `--forget` drops it without touching anything.
    @Test func rollbackKeepsWhatChangedSinceAndForgetDropsTheRecord() throws {
        let (repo, _) = try releasableBump()
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:1"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        try repo.write("VERSION", "9.9.9\n")
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 1, "\(rollback.all)")
        #expect(rollback.stdout.contains("kept: restore VERSION: VERSION changed after Shiplane wrote it"), "\(rollback.all)")
        #expect(rollback.stdout.contains("undone: restore package.json"), "\(rollback.all)")
        #expect(repo.read("VERSION") == "9.9.9\n", "the hand edit is not overwritten")
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "kept for another try")
        let forget = try repo.shiplane(["rollback", "--forget"])
        #expect(forget.status == 0 && forget.stdout.contains("Forgot the unfinished run"), "\(forget.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"))
        #expect(repo.read("VERSION") == "9.9.9\n")
    }

    /// A run killed while writing its record's ref leaves `refs/shiplane/run.lock`: the next run
    /// is not stopped by it.
    @Test func aStaleLockOnTheRecordRefIsCleared() throws {
        let (repo, origin) = try releasableBump()
        let start = try ReleaseState(repo, origin: origin)
        try repo.write(".git/refs/shiplane/run.lock", "")
        let result = try repo.shiplane(release)
        #expect(result.status == 0, "\(result.all)")
        try expectOneRelease(repo, origin, start: start, "with a stale lock on refs/shiplane/run")
    }

    @Test func rollbackAndResumeWithNothingUnfinishedSaySo() throws {
        let repo = try versionedRepository()
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0 && rollback.stdout.contains("nothing to roll back"), "\(rollback.all)")
        let resume = try repo.shiplane(["resume"])
        #expect(resume.status == 0 && resume.stdout.contains("nothing to resume"), "\(resume.all)")
    }
}

@Suite("Secrets handed to commands, multi-line secrets, version files that leave the repository", .offThePool)
struct SecretAndPreconditionTests {
    @Test func aSecretOfSeveralLinesIsRedactedLineByLine() {
        let key = "-----BEGIN KEY-----\nMIIBfirstline0123\nsecondline4567xyz\n-----END KEY-----"
        let environment = LaneEnvironment(variables: ["SIGNING_KEY": key])
        let redactor = SecretRedactor(secrets: Array(environment.secretValues))
        for line in key.split(separator: "\n") {
            #expect(redactor.redact("printed: \(line)") == "printed: ***")
        }
        #expect(redactor.redact(key) == "***")
    }

    @Test func valuesPassedToShUnderSecretNamesAreRedacted() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Deploy.swift", """
        import Shiplane
        struct Deploy: Lane {
            func run(_ lane: LaneContext) async throws {
                let secret = "dpl-" + "9f8e7d6c5b4a"
                _ = try await lane.sh(["sh", "-c", "echo deploying with $DEPLOY_TOKEN; echo $DEPLOY_TOKEN >&2"], environment: ["DEPLOY_TOKEN": secret])
                lane.log("the token was " + secret)
                try await lane.sh(["sh", "-c", "exit 3"], environment: ["DEPLOY_TOKEN": secret])
            }
        }
        """)
        let report = repo.root + "/report.json"
        let result = try repo.shiplane(["deploy", "--report-json", report])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stdout.contains("deploying with ***"), "\(result.all)")
        #expect(result.stdout.contains("the token was ***"), "\(result.all)")
        #expect(!result.all.contains("9f8e7d6c5b4a"), "\(result.all)")
        let json = String(decoding: FileManager.default.contents(atPath: report) ?? Data(), as: UTF8.self)
        #expect(!json.isEmpty && !json.contains("9f8e7d6c5b4a"))
    }

    @Test func whatLaneCodePrintsIsRedactedByTheSupervisor() throws {
        let repo = try versionedRepository()
        try repo.write("Lanes/Leak.swift", """
        import Foundation
        import Shiplane
        struct Leak: Lane {
            @Flag var crash = false
            func run(_ lane: LaneContext) async throws {
                let token = lane.environment["API_TOKEN"] ?? "none"
                print("print: " + token)
                FileHandle.standardError.write(Data(("stderr: " + token + "\\n").utf8))
                if crash { fatalError("trap: " + token) }
            }
        }
        """)
        let secret = "tok-" + "51f0c2aa93"
        let printed = try repo.shiplane(["leak"], environment: ["API_TOKEN": secret])
        #expect(printed.status == 0, "\(printed.all)")
        #expect(printed.stdout.contains("print: ***") && printed.stderr.contains("stderr: ***"), "\(printed.all)")
        #expect(!printed.all.contains(secret))
        let crashed = try repo.shiplane(["leak", "--crash"], environment: ["API_TOKEN": secret])
        #expect(crashed.status == 70, "\(crashed.all)")
        #expect(crashed.stderr.contains("trap: ***"), "\(crashed.all)")
        #expect(!crashed.all.contains(secret))
    }

    @Test func aVersionFileLinkedOutsideTheRepositoryIsRefused() throws {
        let repo = try TemporaryRepository()
        let outside = repo.root + "/outside-VERSION"
        try Data("1.2.3\n".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/VERSION", withDestinationPath: outside)
        try repo.git("add", "VERSION")
        try repo.git("commit", "-q", "-m", "chore: linked version")
        let result = try repo.shiplane(["bump", "patch"])
        #expect(result.status != 0, "\(result.all)")
        #expect(result.stderr.contains("symbolic link") && result.stderr.contains("outside the repository"), "\(result.all)")
        #expect(String(decoding: FileManager.default.contents(atPath: outside) ?? Data(), as: UTF8.self) == "1.2.3\n", "the file outside is untouched")
    }
}

@Suite("Git hooks run as git runs them", .serialized, .offThePool)
struct GitHookTests {
    private func hook(_ repo: TemporaryRepository, _ name: String, _ script: String, folder: String = ".git/hooks") throws {
        try repo.write("\(folder)/\(name)", "#!/bin/sh\n" + script)
        chmod(repo.path + "/\(folder)/\(name)", 0o755)
    }

    @Test func aFailingPreCommitHookFailsTheStepWithItsOutputAndLeavesNothing() throws {
        let repo = try versionedRepository()
        try hook(repo, "pre-commit", "echo 'lint: VERSION is not allowed to change on Fridays' >&2\nexit 1\n")
        let head = try repo.git("rev-parse", "HEAD")
        let result = try repo.shiplane(["bump", "patch", "--commit"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the pre-commit hook refused (exit code 1)"), "\(result.all)")
        #expect(result.all.contains("lint: VERSION is not allowed to change on Fridays"), "\(result.all)")
        #expect(try repo.git("rev-parse", "HEAD") == head)
        #expect(try repo.git("status", "--porcelain").isEmpty, "files restored and unstaged")
        // --no-verify skips it.
        let skipped = try repo.shiplane(["bump", "patch", "--commit", "--no-verify"])
        #expect(skipped.status == 0, "\(skipped.all)")
        #expect(try repo.git("log", "-1", "--format=%s") == "chore(release): 1.2.4")
    }

    @Test func preCommitSeesTheStagedFilesAndCommitMsgMayEditTheMessage() throws {
        let repo = try versionedRepository()
        try hook(repo, "pre-commit", "git diff --cached --name-only > \"$HOME/staged.txt\"\n")
        try hook(repo, "commit-msg", "printf '%s\\n\\nSigned-off-by: Hook <hook@example.com>\\n' \"$(cat \"$1\")\" > \"$1\"\n")
        let result = try repo.shiplane(["bump", "minor", "--commit"])
        #expect(result.status == 0, "\(result.all)")
        let staged = String(decoding: FileManager.default.contents(atPath: repo.home + "/staged.txt") ?? Data(), as: UTF8.self)
        #expect(staged == "VERSION\npackage.json\n", "\(staged)")
        #expect(try repo.git("log", "-1", "--format=%B") == "chore(release): 1.3.0\n\nSigned-off-by: Hook <hook@example.com>")
        try repo.git("fsck", "--strict")
    }

    /// A pre-push hook that never reads its input (most do not) refuses cleanly, every time.
    @Test func aPrePushHookThatIgnoresItsInputRefusesCleanly() throws {
        for _ in 0..<5 {
            let repo = try versionedRepository()
            let origin = try TemporaryRepository(bare: true)
            try repo.git("remote", "add", "origin", origin.path)
            try repo.git("push", "-q", "origin", "main", "v1.2.3")
            try hook(repo, "pre-push", "exit 1\n")
            let result = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--push"])
            #expect(result.status == 1, "\(result.all)")
            #expect(result.stderr.contains("the pre-push hook refused (exit code 1)"), "\(result.all)")
            #expect(try origin.git("tag", "--list") == "v1.2.3")
        }
    }

    @Test func prePushGetsGitsLinesAndCanStopThePushFromCoreHooksPath() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        try repo.git("config", "core.hooksPath", "githooks")
        try hook(repo, "pre-push", "echo \"args: $1 $2\" > \"$HOME/push.txt\"\ncat >> \"$HOME/push.txt\"\nexit 3\n", folder: "githooks")
        try repo.git("add", "githooks")
        try repo.git("commit", "-q", "-m", "chore: hooks")
        let before = try origin.git("rev-parse", "refs/heads/main")
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--push"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the pre-push hook refused (exit code 3)"), "\(result.all)")
        #expect(try origin.git("rev-parse", "refs/heads/main") == before, "nothing was pushed")
        #expect(try origin.git("tag", "--list") == "v1.2.3")
        let seen = String(decoding: FileManager.default.contents(atPath: repo.home + "/push.txt") ?? Data(), as: UTF8.self)
        let lines = seen.split(separator: "\n").map(String.init)
        #expect(lines.first == "args: origin \(origin.path)", "\(seen)")
        #expect(lines.dropFirst().contains { $0.hasPrefix("refs/heads/main ") && $0.hasSuffix(" refs/heads/main \(before)") }, "\(seen)")
        #expect(lines.dropFirst().contains { $0.hasPrefix("refs/tags/v1.2.4 ") && $0.hasSuffix(" refs/tags/v1.2.4 " + String(repeating: "0", count: 40)) }, "\(seen)")
        // Refused before anything was sent: rolled back, nothing left unfinished.
        #expect(repo.read("VERSION") == "1.2.3\n")
        #expect(try repo.git("tag", "--list") == "v1.2.3")
    }
}
