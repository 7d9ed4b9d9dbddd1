import Foundation
import Testing

/// DESIGN.md's release lane with its build step a short child command (`sleep 0.05`, so kills
/// also land while a command runs) and its asset made by the lane itself (a deterministic
/// `archive`), so a fresh clone has no build output until the lane makes it again: every effect of
/// the real lane, a fraction of its time (`swift build -c release` of a fresh package is about
/// a CPU-second, and the kill-after-every-step suites run it some 80 times).
let quickReleaseLane = designExampleLane
    .replacingOccurrences(
        of: #"try await lane.sh("swift", "build", "-c", "release")"#,
        with: #"try await lane.sh("sleep", "0.05"); _ = try lane.archive(["Sources", "VERSION"], to: ".build/app.tar.gz")"#)
    .replacingOccurrences(of: #"assets: [".build/release/app.tar.gz"]"#, with: #"assets: [".build/app.tar.gz"]"#)

/// What one random kill and the retry after it came to.
private enum KillOutcome: String, CaseIterable {
    case completedBeforeTheKill = "the run had completed before the kill"
    case resumedHere = "killed, then the same command in the same checkout"
    case rerunInAFreshCloneInCI = "killed, then the same command in a fresh clone of origin with no build output, `CI=true` (a CI retry)"
    case rerunInAFreshCloneOutsideCI = "killed, then the same command in a fresh clone of origin with no build output, `CI` unset"
    case finishedBeforeTheKillRetryFoundNothing =
        "killed after the release was whole and its record gone from origin; the retry (here or in a fresh clone) said nothing to release (exit 5)"
}

/// SIGKILL to the supervisor and the lane program's whole process group (every third trial: to
/// `shiplane` alone, whose lane program must die with it) at a random moment of the release lane (GitHub release with an asset, Slack message), as a cancelled CI job or a
/// dead machine would; then the same command again, on the same machine or in a fresh clone of
/// origin. Every trial must end in exactly one release of 1.5.0: the tag on the release commit
/// here (or in the clone) and on origin, one published release with its asset's bytes intact,
/// one Slack message — never two; none only when the kill landed inside the Slack call before
/// Slack had it and the retry said it kept the at-most-once rule, counted — and `git fsck
/// --strict` clean. `SHIPLANE_RANDOM_KILL_TRIALS` sets the number of trials (12
/// by default; the README's table comes from a longer run).
@Suite("The release lane killed at random moments", .serialized, .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct ReleaseRandomKillTests {
    @Test func killedAtRandomMomentsEveryTrialEndsInExactlyOneRelease() async throws {
        let trials = ProcessInfo.processInfo.environment["SHIPLANE_RANDOM_KILL_TRIALS"].flatMap(Int.init) ?? 12
        // Clean runs measure how long the lane takes; the kills are spread over that time. The
        // first pays for cold caches (page cache, the loopback servers' first connections), so
        // the shorter of two is taken: a spread measured on the first alone put most kills after
        // the run had ended.
        var duration = Double.infinity
        var asset: [UInt8] = []
        for _ in 1...2 {
            let clean = try await TrialWorld()
            let started = Date()
            let run = try await clean.repo.shiplaneAsync(["release"], environment: clean.environment)
            duration = min(duration, Date().timeIntervalSince(started))
            clean.stop()
            #expect(run.status == 0, "\(run.all)")
            // The archive is deterministic: every trial's release must carry these very bytes.
            let made = Array((try? Data(contentsOf: URL(fileURLWithPath: clean.repo.path + "/.build/app.tar.gz"))) ?? Data())
            #expect(!made.isEmpty && (asset.isEmpty || asset == made), "the lane's archive is the same in every clean run")
            asset = made
        }
        var outcomes: [KillOutcome: Int] = [:]
        var skippedMessages = 0
        var supervisorOnlyKills = 0
        var inconsistent: [String] = []
        var generator = SystemRandomNumberGenerator()
        for trial in 1...trials {
            let world = try await TrialWorld(asset: asset)
            defer { world.stop() }
            let delay = Double.random(in: 0...(duration * 0.9), using: &generator)
            let freshClone = trial % 2 == 0
            // Half of the fresh clones retry as a CI job does (`CI=true`), half as a person would.
            let inCI = trial % 4 == 0
            // Every third kill hits only `shiplane`, as `kill -9` of the supervisor or a runner
            // killing the job's main process does: its lane program must die with it.
            let onlySupervisor = trial % 3 == 0
            if onlySupervisor { supervisorOnlyKills += 1 }
            let (status, messagesAtKill) = try world.runAndKill(after: delay, onlySupervisor: onlySupervisor)
            let place = (freshClone ? "fresh clone, CI \(inCI ? "set" : "unset")" : "same checkout") + (onlySupervisor ? ", only shiplane killed" : "")
            let context = "trial \(trial), killed after \(Int(delay * 1000)) ms (\(place)), first run exit \(status.map(String.init) ?? "SIGKILL")"
            let outcome: KillOutcome
            let checkout: TemporaryRepository
            var retried = ""
            if status == 0 {
                outcome = .completedBeforeTheKill
                checkout = world.repo
            } else if freshClone {
                // Killed at the very end (the record already deleted from origin, the local one
                // not yet): the release is whole, and a fresh clone rightly finds nothing new.
                let wholeBeforeTheRetry = try world.releaseIsWholeOnTheServers()
                checkout = try world.freshClone()
                let again = try await runProgramAsync(shiplaneBinary, ["release"], in: checkout.path, environment: world.cloneEnvironment(checkout, inCI: inCI))
                retried = again.all
                if again.status == 5 && wholeBeforeTheRetry {
                    outcome = .finishedBeforeTheKillRetryFoundNothing
                } else {
                    outcome = inCI ? .rerunInAFreshCloneInCI : .rerunInAFreshCloneOutsideCI
                    if again.status != 0 { inconsistent.append("\(context): the retry in a fresh clone exited \(again.status): \(again.all)") }
                }
            } else {
                // Killed at the very end here too (the records deleted, the process not yet
                // gone): the release is whole, and the same command again rightly finds nothing new.
                let wholeBeforeTheRetry = try world.releaseIsWholeOnTheServers()
                checkout = world.repo
                let again = try await world.repo.shiplaneAsync(["release"], environment: world.environment)
                retried = again.all
                if again.status == 5 && wholeBeforeTheRetry {
                    outcome = .finishedBeforeTheKillRetryFoundNothing
                } else {
                    outcome = .resumedHere
                    if again.status != 0 { inconsistent.append("\(context): the same command again exited \(again.status): \(again.all)") }
                }
            }
            outcomes[outcome, default: 0] += 1
            let problems = try world.oneReleaseProblems(in: checkout)
            if world.slack.payloads.count == 0 && outcome != .completedBeforeTheKill
                && retried.contains("may have been sent by the earlier attempt of this step, whose answer was lost") {
                // The kill landed inside the Slack call before Slack had the message: an incoming
                // webhook cannot be asked, and the retry keeps the at-most-once rule (with its warning).
                skippedMessages += 1
            } else if world.slack.payloads.count != 1 {
                inconsistent.append("\(context): \(world.slack.payloads.count) Slack messages (\(messagesAtKill) when killed)")
            }
            inconsistent += problems.map { "\(context): \($0)" }
        }
        var table = ["| outcome | trials |", "| --- | ---: |"]
        for outcome in KillOutcome.allCases { table.append("| \(outcome.rawValue) | \(outcomes[outcome, default: 0]) |") }
        table.append("| no Slack message: the kill landed inside the Slack call before Slack had it, and the retry kept the at-most-once rule with its warning | \(skippedMessages) |")
        table.append("| a second Slack message | 0 (any is counted as inconsistent) |")
        table.append("| of all trials: the kill hit only `shiplane` (its lane program dies with it) | \(supervisorOnlyKills) |")
        table.append("| inconsistent | \(inconsistent.count) |")
        print("Random kills of the release lane (\(trials) trials, kills spread over \(Int(duration * 900)) ms):\n" + table.joined(separator: "\n"))
        #expect(inconsistent.isEmpty, "\(inconsistent.joined(separator: "\n"))")
        let retried = outcomes[.resumedHere, default: 0] + outcomes[.rerunInAFreshCloneInCI, default: 0] + outcomes[.rerunInAFreshCloneOutsideCI, default: 0]
        #expect(retried >= trials / 3, "most kills land in the run: \(outcomes)")
    }
}

/// Two fresh clones of origin run the release lane at the same moment, five times: every race
/// ends in exactly one release (one tag on origin, one GitHub release with the archive's bytes,
/// one Slack message); the loser changes nothing that stays, and what it then offers (`resume`,
/// the same command again) sends nothing.
@Suite("Two clones race to release", .serialized, .tags(.slow), .enabled(if: slowSuitesRun), .offThePool)
struct TwoCloneRaceTests {
    @Test func twoClonesReleasingAtOnceMakeOneReleaseAndOneMessage() async throws {
        for race in 1...5 {
            let world = try await TrialWorld()
            defer { world.stop() }
            let first = try world.freshClone()
            let second = try world.freshClone()
            let (pathA, environmentA) = (first.path, world.cloneEnvironment(first, inCI: race % 2 == 0))
            let (pathB, environmentB) = (second.path, world.cloneEnvironment(second, inCI: true))
            async let a = runProgramAsync(shiplaneBinary, ["release"], in: pathA, environment: environmentA)
            async let b = runProgramAsync(shiplaneBinary, ["release"], in: pathB, environment: environmentB)
            let (ranA, ranB) = try await (a, b)
            let context = "race \(race): exits \(ranA.status) and \(ranB.status)"
            #expect([ranA.status, ranB.status].filter { $0 == 0 }.count == 1, "one winner: \(context)\n\(ranA.all)\n\(ranB.all)")
            let (winner, loser, lost) = ranA.status == 0 ? (first, second, ranB) : (second, first, ranA)
            #expect(lost.status == 1 || lost.status == 7, "the loser stops before publishing anything: \(context)\n\(lost.all)")
            #expect(!lost.all.contains("point of no return:"), "\(context)\n\(lost.all)")
            let made = Array((try? Data(contentsOf: URL(fileURLWithPath: winner.path + "/.build/app.tar.gz"))) ?? Data())
            world.asset = made
            let problems = try world.oneReleaseProblems(in: winner)
            #expect(!made.isEmpty && problems.isEmpty, "\(context): \(problems)")
            #expect(world.slack.payloads.count == 1, "\(context): \(world.slack.payloads.count) Slack messages")
            // What the loser is offered next sends nothing and publishes nothing.
            let env = world.cloneEnvironment(loser, inCI: false)
            let resume = try await runProgramAsync(shiplaneBinary, ["resume"], in: loser.path, environment: env)
            let again = try await runProgramAsync(shiplaneBinary, ["release"], in: loser.path, environment: env)
            #expect(again.status != 0, "\(context): the loser's second try: \(again.all)")
            #expect(world.slack.payloads.count == 1, "\(context): after the loser's resume (\(resume.status)) and second try (\(again.status)): \(world.slack.payloads.count) messages")
            #expect(world.github.allReleases.count == 1 && world.github.allAssets.count == 1, "\(context): \(world.github.allReleases)")
            #expect((try? world.origin.git("tag", "--list")) == "v1.4.0\nv1.5.0", "\(context)")
            #expect((try? loser.git("status", "--porcelain"))?.isEmpty == true, "\(context): the loser's tree is clean")
        }
    }
}

/// Two runs of one commit in the same second make byte-identical release commits and tags: the
/// later run's push would change nothing on origin, which is no proof it published anything. It
/// stops before sending, rolls back, and announces nothing (a race seen in CI, made certain here
/// by fixing the commit dates).
@Suite("A release another run already published", .serialized, .offThePool)
struct IdenticalReleaseTests {
    /// Fixed dates: two runs of one commit make byte-identical release commits.
    static let dates = ["GIT_AUTHOR_DATE": "2026-11-25T12:00:00Z", "GIT_COMMITTER_DATE": "2026-11-25T12:00:00Z", "SOURCE_DATE_EPOCH": "1764072000"]

    /// Two fresh clones of origin; the first has released 1.5.0 with the fixed dates.
    fileprivate func firstCloneReleased() async throws -> (world: TrialWorld, first: TemporaryRepository, second: TemporaryRepository) {
        let world = try await TrialWorld()
        let first = try world.freshClone()
        let second = try world.freshClone()
        let won = try await runProgramAsync(shiplaneBinary, ["release"], in: first.path, environment: world.cloneEnvironment(first, inCI: true).merging(Self.dates) { $1 })
        #expect(won.status == 0, "\(won.all)")
        world.asset = Array((try? Data(contentsOf: URL(fileURLWithPath: first.path + "/.build/app.tar.gz"))) ?? Data())
        return (world, first, second)
    }

    @Test func theSecondIdenticalReleaseStopsBeforeThePushAndSendsNothing() async throws {
        let (world, first, second) = try await firstCloneReleased()
        defer { world.stop() }
        let late = try await runProgramAsync(shiplaneBinary, ["release"], in: second.path, environment: world.cloneEnvironment(second, inCI: true).merging(Self.dates) { $1 })
        #expect(late.status == 1, "\(late.all)")
        #expect(late.all.contains("origin already has v1.5.0 at this very commit, and this run did not push it: another run released it first"), "\(late.all)")
        #expect(!late.all.contains("point of no return:"), "\(late.all)")
        #expect(world.slack.payloads.count == 1, "\(world.slack.payloads.count) Slack messages")
        #expect(world.github.allReleases.count == 1 && world.github.allAssets.count == 1, "\(world.github.allReleases)")
        #expect(try world.oneReleaseProblems(in: first).isEmpty)
        #expect((try? second.git("tag", "--list")) == "v1.4.0", "the late run's tag is rolled back")
        #expect((try? second.git("status", "--porcelain"))?.isEmpty == true, "the late run's tree is clean")
        let head = try second.git("rev-parse", "HEAD"), before = try second.git("rev-parse", "origin/main")
        #expect(head == before, "the late run's commit is rolled back: HEAD \(head), origin/main as cloned \(before)")
    }

    /// The other run's tag was made a moment later: the same release commit, another tag object
    /// (the tagger's time differs). Origin refuses this run's tag; the tag it has names the very
    /// commit this run made, so it is the same release published by the other run: this run stops,
    /// rolls back and announces nothing (the two-clone race hit this by chance; here it is made
    /// certain by fixing the commit dates and re-tagging on origin).
    @Test func aTagObjectMadeLaterForTheSameCommitIsTheOtherRunsRelease() async throws {
        let (world, _, second) = try await firstCloneReleased()
        defer { world.stop() }
        // The other run's tag object: the same commit, tagged a moment later.
        let commit = try world.origin.git("rev-parse", "v1.5.0^{commit}")
        try world.origin.git("tag", "-f", "-a", "v1.5.0", commit, "-m", "Release 1.5.0")
        let theirTag = try world.origin.git("rev-parse", "v1.5.0")
        let late = try await runProgramAsync(shiplaneBinary, ["release"], in: second.path, environment: world.cloneEnvironment(second, inCI: true).merging(Self.dates) { $1 })
        #expect(try second.git("rev-parse", "HEAD") == second.git("rev-parse", "origin/main"), "the late run's commit is rolled back")
        #expect(late.status == 1, "\(late.all)")
        #expect(late.all.contains("origin already has v1.5.0 at this very commit, and this run did not push it: another run released it first"), "\(late.all)")
        #expect(!late.all.contains("point of no return:"), "\(late.all)")
        #expect(try world.origin.git("rev-parse", "v1.5.0") == theirTag, "origin keeps the other run's tag object")
        #expect(try world.origin.git("rev-parse", "main") == commit, "origin's branch is the release commit")
        #expect(world.slack.payloads.count == 1, "\(world.slack.payloads.count) Slack messages")
        #expect(world.github.allReleases.count == 1 && world.github.allAssets.count == 1, "\(world.github.allReleases)")
        #expect((try? second.git("tag", "--list")) == "v1.4.0", "the late run's tag is rolled back")
        #expect((try? second.git("status", "--porcelain"))?.isEmpty == true, "the late run's tree is clean")
    }
}

/// One trial's repository, its origin served by `git http-backend` over loopback HTTP with basic
/// auth (a real remote writes its refs in its own process, as GitHub's does), and loopback
/// GitHub and Slack.
private final class TrialWorld {
    let github = FakeGitHub()
    let slack = FakeSlack()
    let repo: TemporaryRepository
    let origin: TemporaryRepository
    let gitServer: GitHTTPServer
    let start: String
    /// The bytes of the lane's archive of 1.5.0 (the same in every run: it is deterministic).
    var asset: [UInt8]
    var environment: [String: String] {
        ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL]
    }

    init(asset: [UInt8] = []) async throws {
        self.asset = asset
        try await github.start()
        try await slack.start()
        (repo, origin) = try releasableRepository(lane: quickReleaseLane)
        gitServer = try await GitHTTPServer.start(
            projectRoot: origin.root, username: "x-access-token", password: github.token, environment: origin.environment)
        try repo.git("config", "--unset", "url.\(origin.path).insteadOf")
        try repo.git("config", "url.\(gitServer.url("repo")).insteadOf", "https://github.com/acme/rocket.git")
        start = try repo.git("rev-parse", "HEAD")
        #expect(try repo.shiplane(["lanes"]).status == 0, "the lanes compile (cached after the first trial)")
    }

    func stop() {
        github.stop()
        slack.stop()
        gitServer.stop()
    }

    /// Starts `shiplane release`, SIGKILLs it and its lane program's process group after `delay`
    /// seconds (only `shiplane` when `onlySupervisor`); the first run's exit code (nil when
    /// killed) and the Slack messages at that moment.
    func runAndKill(after delay: Double, onlySupervisor: Bool = false) throws -> (status: Int32?, messages: Int) {
        let supervisor = Process()
        supervisor.executableURL = URL(fileURLWithPath: shiplaneBinary)
        supervisor.arguments = ["release"]
        supervisor.currentDirectoryURL = URL(fileURLWithPath: repo.path)
        var variables = repo.environment
        for (key, value) in environment { variables[key] = value }
        supervisor.environment = variables
        supervisor.standardOutput = FileHandle.nullDevice
        supervisor.standardError = FileHandle.nullDevice
        try supervisor.run()
        usleep(UInt32(delay * 1_000_000))
        if supervisor.isRunning {
            // The lane program leads its own process group (the supervisor made it so): kill
            // that group and the supervisor at once, leaving neither a chance to clean up.
            let children = try runProgram("/usr/bin/pgrep", ["-P", "\(supervisor.processIdentifier)"], in: repo.path, environment: repo.environment)
            kill(supervisor.processIdentifier, SIGKILL)
            if !onlySupervisor {
                for pid in children.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(-pid, SIGKILL) }
            }
        }
        supervisor.waitUntilExit()
        let messages = slack.payloads.count
        // Let a killed lane program's group be gone before the next run takes the lock.
        for _ in 0..<100 where (try? runProgram("/usr/bin/pgrep", ["-f", repo.path], in: repo.path, environment: repo.environment).status) == 0 { usleep(20_000) }
        return (supervisor.terminationReason == .exit ? supervisor.terminationStatus : nil, messages)
    }

    /// True when origin, GitHub and Slack hold the whole release and origin no run record.
    func releaseIsWholeOnTheServers() throws -> Bool {
        let record = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "show-ref", "--verify", "--quiet", "refs/shiplane/run"],
                                    in: origin.root, environment: origin.environment)
        return record.status != 0 && (try? origin.git("tag", "--list")) == "v1.4.0\nv1.5.0"
            && github.allReleases.map(\.tag) == ["v1.5.0"] && github.allReleases.allSatisfy { !$0.draft }
            && github.allAssets.count == 1 && slack.payloads.count == 1
    }

    /// A new clone of origin as a CI runner makes one: no build output (the lane makes its asset
    /// again), the same remote URL.
    func freshClone() throws -> TemporaryRepository {
        let clone = try TemporaryRepository(commit: false)
        try FileManager.default.removeItem(atPath: clone.path)
        let cloned = try runProgram("/usr/bin/git", ["clone", "-q", origin.path, clone.path], in: clone.root, environment: clone.environment)
        guard cloned.status == 0 else { throw TestFailure("git clone failed: \(cloned.all)") }
        try clone.git("remote", "set-url", "origin", "https://github.com/acme/rocket.git")
        try clone.git("config", "url.\(gitServer.url("repo")).insteadOf", "https://github.com/acme/rocket.git")
        return clone
    }

    func cloneEnvironment(_ clone: TemporaryRepository, inCI: Bool) -> [String: String] {
        var variables = clone.environment
        for (key, value) in environment { variables[key] = value }
        if inCI { variables["CI"] = "true" }
        return variables
    }

    /// What is wrong with "exactly one release of 1.5.0", seen from `checkout` and origin.
    func oneReleaseProblems(in checkout: TemporaryRepository) throws -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: @autoclosure () -> String) { if !condition { problems.append(problem()) } }
        check(checkout.read("VERSION") == "1.5.0\n", "VERSION is \(checkout.read("VERSION") ?? "missing")")
        check((try? checkout.git("tag", "--list")) == "v1.4.0\nv1.5.0", "local tags: \((try? checkout.git("tag", "--list")) ?? "?")")
        check((try? origin.git("tag", "--list")) == "v1.4.0\nv1.5.0", "origin's tags: \((try? origin.git("tag", "--list")) ?? "?")")
        check((try? checkout.git("rev-parse", "HEAD~1")) == start, "not one release commit on the start")
        check((try? checkout.git("rev-parse", "v1.5.0^{commit}")) == (try? checkout.git("rev-parse", "HEAD")), "the tag is not on the release commit")
        check((try? origin.git("rev-parse", "refs/heads/main")) == (try? checkout.git("rev-parse", "HEAD")), "origin's main is not the release commit")
        check((try? origin.git("rev-parse", "v1.5.0^{commit}")) == (try? checkout.git("rev-parse", "HEAD")), "origin's tag is not on the release commit")
        check(github.allReleases.map(\.tag) == ["v1.5.0"] && github.allReleases.allSatisfy { !$0.draft }, "releases: \(github.allReleases)")
        check(github.allAssets.map(\.name) == ["app.tar.gz"], "assets: \(github.allAssets.map(\.name))")
        check(github.allAssets.first.map { $0.bytes == asset } == true, "the asset's bytes differ from the lane's archive")
        check((try? checkout.git("status", "--porcelain"))?.isEmpty == true, "the work tree is not clean: \((try? checkout.git("status", "--porcelain")) ?? "?")")
        check(!FileManager.default.fileExists(atPath: checkout.path + "/.git/shiplane/run.json"), "a run record is left")
        for repository in [checkout, origin] {
            let fsck = try runProgram("/usr/bin/git", ["fsck", "--strict"], in: repository.path, environment: repository.environment)
            check(fsck.status == 0, "git fsck: \(fsck.all)")
        }
        return problems
    }
}
