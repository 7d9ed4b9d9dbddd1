import Foundation
import Testing
import Shiplane

/// A versioned repository at 1.2.3 whose origin holds main and v1.2.3, with lanes committed.
private func releasable(lanes: [String: String] = [:]) throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
    let repo = try versionedRepository()
    for (path, text) in lanes { try repo.write(path, text) }
    if !lanes.isEmpty {
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
    }
    let origin = try TemporaryRepository(bare: true)
    try repo.git("remote", "add", "origin", origin.path)
    try repo.git("push", "-q", "origin", "main", "v1.2.3")
    return (repo, origin)
}

private let release = ["bump", "minor", "--commit", "--tag", "--push"]

/// A clone of `origin` in a folder of its own (removed with `holder`), with CI unset.
private func freshClone(of origin: TemporaryRepository) throws -> (holder: TemporaryRepository, path: String) {
    let holder = try TemporaryRepository(commit: false)
    try holder.git("clone", "-q", origin.path, holder.path + "/clone")
    return (holder, holder.path + "/clone")
}

/// Every fresh clone — CI or not — finds a release that stopped after its push on origin, before
/// its first effect: it finishes that release, never a second version, never "nothing to release".
@Suite(.serialized, .offThePool) struct FreshCloneLookTests {
    @Test func aFreshCloneOutsideCIFinishesTheReleaseInsteadOfMakingASecondOne() throws {
        let (repo, origin) = try releasable()
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        let releaseCommit = try origin.git("rev-parse", "refs/heads/main")
        let (holder, clone) = try freshClone(of: origin)
        #expect(holder.environment["CI"] == nil)
        let again = try runProgram(shiplaneBinary, release, in: clone, environment: holder.environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.stderr.contains("Found the unfinished run of `shiplane bump (with the options it was started with)` recorded on origin"), "\(again.all)")
        #expect(again.stderr.contains("this attempt changed nothing and stops here (what it said above is not the outcome): resuming that run."), "\(again.all)")
        // The step the look stopped reads as stopped, not failed.
        #expect(!again.all.contains("failed: origin holds the unfinished run"), "\(again.all)")
        #expect(again.all.contains("stopped") && again.all.contains(": origin holds the unfinished run of"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version: \(again.all)")
        #expect(try origin.git("rev-parse", "refs/heads/main") == releaseCommit)
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0,
                "the finished run deletes the record on origin")
        let status = try runProgram("/usr/bin/git", ["status", "--porcelain"], in: clone, environment: holder.environment)
        #expect(status.stdout.isEmpty, "\(status.stdout)")
        try origin.git("fsck", "--strict")
    }

    /// `bump auto` in the clone sees no commit since v1.3.0 (the clone has the tag): without the
    /// look it would say "nothing to release" (exit 5) over the half-published release.
    @Test func nothingToReleaseOverAHalfPublishedReleaseResumesIt() throws {
        let (repo, origin) = try releasable()
        try repo.write("feature.txt", "x\n")
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: a feature")
        try repo.git("push", "-q", "origin", "main")
        let auto = ["bump", "auto", "--commit", "--tag", "--push"]
        let killed = try repo.shiplane(auto, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        let (holder, clone) = try freshClone(of: origin)
        let again = try runProgram(shiplaneBinary, auto, in: clone, environment: holder.environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.stderr.contains("resuming that run"), "\(again.all)")
        // The first attempt's "nothing to release" is shown, then put right: it stopped and the
        // command started again as the resume.
        let restart = again.all.range(of: "Found the unfinished run")
        #expect(restart != nil, "\(again.all)")
        if let restart { #expect(!again.all[restart.upperBound...].contains("nothing to release"), "\(again.all)") }
        #expect(again.stdout.contains("lane bump succeeded"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0)
    }

    /// A CI retry checks out the trigger commit (detached, as `actions/checkout` does), which is
    /// the release commit's parent once the killed attempt's push landed: the retry moves the
    /// checkout forward to the release commit and finishes the release there (its dry run says it
    /// would); a changed file in that checkout stops the move, exit 7, the file kept.
    @Test func aCIRetryAtTheTriggerCommitMovesForwardAndFinishes() throws {
        let (repo, origin) = try releasable()
        let trigger = try origin.git("rev-parse", "refs/heads/main")
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        let releaseCommit = try origin.git("rev-parse", "refs/heads/main")
        #expect(releaseCommit != trigger)
        let ci = ["CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main",
                  "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"]

        let (changedHolder, changed) = try freshClone(of: origin)
        let environment = changedHolder.environment.merging(ci) { $1 }
        #expect(try runProgram("/usr/bin/git", ["checkout", "-q", "--detach", trigger], in: changed, environment: environment).status == 0)
        try "edited\n".write(toFile: changed + "/VERSION", atomically: true, encoding: .utf8)
        let refused = try runProgram(shiplaneBinary, release, in: changed, environment: environment)
        #expect(refused.status == 7, "\(refused.all)")
        #expect(try String(contentsOfFile: changed + "/VERSION", encoding: .utf8) == "edited\n")
        #expect(try runProgram("/usr/bin/git", ["rev-parse", "HEAD"], in: changed, environment: environment).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == trigger)

        let (holder, clone) = try freshClone(of: origin)
        let cloneEnvironment = holder.environment.merging(ci) { $1 }
        #expect(try runProgram("/usr/bin/git", ["checkout", "-q", "--detach", trigger], in: clone, environment: cloneEnvironment).status == 0)
        let dry = try runProgram(shiplaneBinary, ["--dry-run"] + release, in: clone, environment: cloneEnvironment)
        // The plan itself is of this commit (its tag exists on origin, so it fails); the note says
        // what the real run does instead.
        #expect(dry.stderr.contains("started from this commit: the real run would move this checkout forward to its release commit"), "\(dry.all)")
        #expect(try runProgram("/usr/bin/git", ["rev-parse", "HEAD"], in: clone, environment: cloneEnvironment).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == trigger)
        let again = try runProgram(shiplaneBinary, release, in: clone, environment: cloneEnvironment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.stderr.contains("so the checkout moved forward to it to finish the release"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version: \(again.all)")
        #expect(try origin.git("rev-parse", "refs/heads/main") == releaseCommit)
        #expect(try runProgram("/usr/bin/git", ["rev-parse", "HEAD"], in: clone, environment: cloneEnvironment).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == releaseCommit)
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0)
        #expect(try runProgram("/usr/bin/git", ["status", "--porcelain"], in: clone, environment: cloneEnvironment).stdout.isEmpty)
        try origin.git("fsck", "--strict")
    }

    /// A dry run in the clone says the real run would resume the release recorded on origin,
    /// and changes nothing.
    @Test func aDryRunInTheCloneSaysTheRealRunWouldResume() throws {
        let (repo, origin) = try releasable()
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        let (holder, clone) = try freshClone(of: origin)
        let dry = try runProgram(shiplaneBinary, ["--dry-run"] + release, in: clone, environment: holder.environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(dry.stderr.contains("is recorded on origin (refs/shiplane/run): the real run would resume it"), "\(dry.all)")
        let other = try runProgram(shiplaneBinary, ["--dry-run", "bump", "patch"], in: clone, environment: holder.environment)
        #expect(other.stderr.contains("the real run would stop with exit 7"), "\(other.all)")
        #expect(try runProgram("/usr/bin/git", ["status", "--porcelain"], in: clone, environment: holder.environment).stdout.isEmpty)
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
    }

    /// Another command in the clone is refused before its first effect (exit 7), names the
    /// unfinished command and changes nothing, here or on origin.
    @Test func anotherCommandInTheCloneIsRefusedAndChangesNothing() throws {
        let (repo, origin) = try releasable()
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        let originRefs = try origin.git("for-each-ref", "--format=%(refname) %(objectname)")
        let (holder, clone) = try freshClone(of: origin)
        let before = try runProgram("/usr/bin/git", ["rev-parse", "HEAD"], in: clone, environment: holder.environment).stdout
        let other = try runProgram(shiplaneBinary, ["bump", "patch", "--commit", "--tag", "--push"], in: clone, environment: holder.environment)
        #expect(other.status == 7, "\(other.all)")
        #expect(other.stderr.contains("an earlier run did not finish: `shiplane bump (with the options it was started with)`"), "\(other.all)")
        #expect(other.stderr.contains("origin holds the record (refs/shiplane/run) of another command's unfinished release at this commit"), "\(other.all)")
        #expect(try runProgram("/usr/bin/git", ["rev-parse", "HEAD"], in: clone, environment: holder.environment).stdout == before)
        #expect(try runProgram("/usr/bin/git", ["status", "--porcelain"], in: clone, environment: holder.environment).stdout.isEmpty)
        #expect(try runProgram("/usr/bin/git", ["tag", "--list"], in: clone, environment: holder.environment).stdout == "v1.2.3\nv1.3.0\n")
        #expect(try origin.git("for-each-ref", "--format=%(refname) %(objectname)") == originRefs, "origin is as it was")
        #expect(!FileManager.default.fileExists(atPath: clone + "/.git/shiplane/run.json"))
    }

    /// A lane that only reads never waits for origin: behind an origin that never answers, it
    /// finishes without a word about it, while a lane with an effect waits (a bounded time),
    /// warns and goes on.
    @Test func aLaneThatOnlyReadsNeverWaitsForOrigin() throws {
        let (repo, _) = try releasable(lanes: [
            "Lanes/Look.swift": """
            import Shiplane
            struct Look: Lane {
                func run(_ lane: LaneContext) async throws {
                    _ = try lane.ensureGitBranch(matching: "main")
                    lane.log("at " + (try lane.lastGitTag() ?? "none"))
                }
            }
            """,
            "Lanes/Touch.swift": """
            import Shiplane
            struct Touch: Lane {
                func run(_ lane: LaneContext) async throws {
                    _ = try lane.bumpVersion(.patch)
                }
            }
            """,
            "Lanes/Quiet.swift": """
            import Shiplane
            struct Quiet: Lane {
                func run(_ lane: LaneContext) async throws {
                    try await Task.sleep(for: .seconds(1))
                    lane.log("nothing to do")
                }
            }
            """,
        ])
        let silent = try SilentServer()
        defer { silent.stop() }
        try repo.git("remote", "set-url", "origin", silent.url + "/origin.git")
        // A lane with no step never looks: the look starts with the first step (the second the
        // lane waits would have let a look begun at the start reach origin).
        let quiet = try repo.shiplane(["quiet"])
        #expect(quiet.status == 0, "\(quiet.all)")
        #expect(quiet.all.contains("nothing to do"), "\(quiet.all)")
        #expect(silent.requests.isEmpty, "a lane with no step went to origin: \(silent.requests)")
        let look = try repo.shiplane(["look"])
        #expect(look.status == 0, "\(look.all)")
        #expect(look.all.contains("at v1.2.3"), "\(look.all)")
        #expect(!look.all.contains("origin"), "a read-only lane says nothing about origin: \(look.all)")
        let touch = try repo.shiplane(["touch"])
        #expect(touch.status == 0, "\(touch.all)")
        #expect(touch.stderr.contains("warning: origin did not say within 10 s whether it holds an unfinished run"), "\(touch.all)")
        #expect(repo.read("VERSION") == "1.2.4\n")
        #expect(silent.requests.count >= 1, "the look went to origin")
    }

    /// The runner dies while the Slack webhook holds the message (sent, never answered). The
    /// record went to origin before the message did, so the retry in a fresh clone knows it may
    /// have been sent: at most once, it is not sent again, and the warning says how to send it.
    @Test func aMessageCutShortIsNotSentAgainByAFreshClone() async throws {
        let (repo, origin) = try releasable(lanes: ["Lanes/Ship.swift": """
            import Shiplane
            struct Ship: Lane {
                func run(_ lane: LaneContext) async throws {
                    let version = try lane.bumpVersion(.minor)
                    try lane.commitVersionBump()
                    try lane.addGitTag("v\\(version)")
                    try await lane.push(tags: ["v\\(version)"])
                    try await lane.slack("Released \\(version)")
                }
            }
            """])
        let hanging = try SilentServer()
        defer { hanging.stop() }
        let run = try SupervisedRun(["ship"], in: repo.path, environment: repo.environment.merging([
            "SLACK_WEBHOOK_URL": hanging.url + "/services/T000/B000/XXXX",
        ]) { $1 })
        run.wait { hanging.requests.count >= 1 }
        #expect(hanging.requests.count == 1, "the message reached Slack")
        let programs = try run.lanePrograms()
        kill(run.pid, SIGKILL)
        for pid in programs { kill(-pid, SIGKILL) }
        _ = run.finish()
        let remoteRecord = try origin.git("show", "refs/shiplane/run:run.json")
        #expect(remoteRecord.contains("notify.message"), "origin's record knows of the message: \(remoteRecord)")

        let slack = FakeSlack()
        try await slack.start()
        defer { slack.stop() }
        let (holder, clone) = try freshClone(of: origin)
        let again = try await runProgramAsync(shiplaneBinary, ["ship"], in: clone,
                                              environment: holder.environment.merging(["SLACK_WEBHOOK_URL": slack.webhookURL]) { $1 })
        #expect(again.status == 0, "\(again.all)")
        #expect(slack.payloads.isEmpty, "no second message: \(slack.payloads)")
        #expect(again.all.contains("may have been sent by the earlier attempt of this step, whose answer was lost"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
    }

    /// Killed right after the message was written down and before its send began (the record
    /// says so: no "under way" note): the retry in the same checkout knows nothing went out and
    /// sends it — one message, not none.
    @Test func aMessageKilledBeforeItsSendBeganIsSentByTheRetry() async throws {
        let (repo, origin) = try releasable(lanes: ["Lanes/Ship.swift": """
            import Shiplane
            struct Ship: Lane {
                func run(_ lane: LaneContext) async throws {
                    let version = try lane.bumpVersion(.minor)
                    try lane.commitVersionBump()
                    try lane.addGitTag("v\\(version)")
                    try await lane.push(tags: ["v\\(version)"])
                    try await lane.slack("Released \\(version)")
                }
            }
            """])
        let slack = FakeSlack()
        try await slack.start()
        defer { slack.stop() }
        let environment = ["SLACK_WEBHOOK_URL": slack.webhookURL]
        // Effects: VERSION, package.json, the commit, the tag, the push, then the message (6th).
        let killed = try repo.shiplane(["ship"], environment: environment.merging(["SHIPLANE_FAULT": "before-effect:6"]) { $1 })
        #expect(killed.status == 75, "\(killed.all)")
        let record = repo.read(".git/shiplane/run.json") ?? ""
        #expect(record.contains("notify.message") && !record.contains(RecordedEffect.sendUnderWay), "\(record)")
        #expect(slack.payloads.isEmpty)
        let again = try repo.shiplane(["ship"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(slack.payloads.count == 1, "one message: \(slack.payloads)")
        #expect(again.all.contains("stopped before its message to"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
    }

    /// `SHIPLANE_REMOTE_RECORD=0` turns the look off: the clone then makes the second version the
    /// README warns about (documented, and seen here so the switch is known to work).
    @Test func theLookCanBeTurnedOff() throws {
        let (repo, origin) = try releasable()
        let killed = try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        let (holder, clone) = try freshClone(of: origin)
        let off = try runProgram(shiplaneBinary, ["bump", "minor"], in: clone, environment: holder.environment.merging(["SHIPLANE_REMOTE_RECORD": "0"]) { $1 })
        #expect(off.status == 0, "\(off.all)")
        #expect(!off.all.contains("origin"), "\(off.all)")
        #expect(try String(contentsOfFile: clone + "/VERSION", encoding: .utf8) == "1.4.0\n")
    }
}
