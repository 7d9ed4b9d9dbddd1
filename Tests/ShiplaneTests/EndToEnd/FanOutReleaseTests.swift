import Foundation
import Testing

/// One app release in three parts, each built by a CI job of its own (issue 42): the parts come
/// first, then the fan-in publishes once (bump, tag, push, GitHub release with every part's
/// archive, one Slack message). Each part's archive is deterministic, so every trial's assets
/// must be these very bytes.
let fanOutLane = #"""
import Shiplane

struct Release: Lane {
    static let summary = "One release, three runners: Linux x86_64, macOS arm64, Android on Linux"

    func run(_ lane: LaneContext) async throws {
        try await lane.part("linux", os: "linux", arch: "x86_64") {
            try await lane.sh("sleep", "0.05")
            _ = try lane.archive(["Sources", "VERSION"], to: "dist/app-linux.tar.gz")
        }
        try await lane.part("macos", os: "macos", arch: "arm64") {
            try await lane.sh("sleep", "0.05")
            _ = try lane.archive(["Sources", "Package.swift"], to: "dist/app-macos.tar.gz")
        }
        try await lane.part("android", os: "linux") {
            try await lane.sh("sleep", "0.05")
            _ = try lane.archive(["App.xcconfig"], to: "dist/app-android.tar.gz")
        }
        let version = try lane.bumpVersion(.auto)
        try lane.commitVersionBump(message: "Version bump to \(version)")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        try await lane.githubRelease(tag: "v\(version)", notes: "notes", assets: lane.artifacts)
        try await lane.slack("Released \(version)")
    }
}
"""#

/// The asset names of the fanned-out release, sorted.
let fanOutAssetNames = ["app-android.tar.gz", "app-linux.tar.gz", "app-macos.tar.gz"]

/// A repository with the fanned-out lane, its origin served by `git http-backend` over loopback
/// HTTP with basic auth, loopback GitHub and Slack; every job runs in a fresh clone of origin.
final class FanOutWorld: @unchecked Sendable {
    let github = FakeGitHub()
    let slack = FakeSlack()
    let repo: TemporaryRepository
    let origin: TemporaryRepository
    let gitServer: GitHTTPServer
    private var clones: [TemporaryRepository] = []
    private let lock = NSLock()

    var environment: [String: String] {
        ["GITHUB_API_URL": github.baseURL, "GITHUB_TOKEN": github.token, "SLACK_WEBHOOK_URL": slack.webhookURL]
    }

    /// origin's URL in every clone (`insteadOf` sends it to the loopback server).
    let originURL: String

    /// `originURL`: the forge's address of origin; `files`: committed with the lane (a forge's settings).
    init(lane: String = fanOutLane, originURL: String = "https://github.com/acme/rocket.git", files: [String: String] = [:]) async throws {
        self.originURL = originURL
        try await github.start()
        try await slack.start()
        (repo, origin) = try releasableRepository(lane: lane)
        try repo.write(".gitignore", ".build/\ndist/\n")
        for (path, text) in files { try repo.write(path, text) }
        try repo.git("add", ".gitignore")
        for path in files.keys.sorted() { try repo.git("add", path) }
        try repo.git("commit", "-q", "-m", "chore: ignore dist")
        try repo.git("push", "-q", "origin", "main")
        gitServer = try await GitHTTPServer.start(
            projectRoot: origin.root, username: "x-access-token", password: github.token, environment: origin.environment)
        try repo.git("config", "--unset", "url.\(origin.path).insteadOf")
        try repo.git("config", "url.\(gitServer.url("repo")).insteadOf", originURL)
        #expect(try repo.shiplane(["lanes"]).status == 0, "the lanes compile (cached after the first world)")
    }

    func stop() {
        github.stop()
        slack.stop()
        gitServer.stop()
    }

    /// The clone the last job ran in.
    var lastClone: TemporaryRepository? { lock.withLock { clones.last } }

    /// A new clone of origin as a CI runner makes one (no build outputs); kept until the world goes.
    func freshClone() throws -> TemporaryRepository {
        let clone = try TemporaryRepository(commit: false)
        try FileManager.default.removeItem(atPath: clone.path)
        let cloned = try runProgram("/usr/bin/git", ["clone", "-q", origin.path, clone.path], in: clone.root, environment: clone.environment)
        guard cloned.status == 0 else { throw TestFailure("git clone failed: \(cloned.all)") }
        try clone.git("remote", "set-url", "origin", originURL)
        try clone.git("config", "url.\(gitServer.url("repo")).insteadOf", originURL)
        lock.withLock { clones.append(clone) }
        return clone
    }

    func cloneEnvironment(_ clone: TemporaryRepository, inCI: Bool = true) -> [String: String] {
        var variables = clone.environment
        for (key, value) in environment { variables[key] = value }
        if inCI { variables["CI"] = "true" }
        return variables
    }

    /// Runs `shiplane ARGUMENTS` in a fresh clone; with `killAfter`, SIGKILLs it (and, unless
    /// `onlySupervisor`, its lane program's process group) after that many seconds, as a
    /// cancelled CI job or a dead runner; with `killWhen`, the same as soon as it holds (looked
    /// at every 20 ms), or with `onlyLaneProgram` only the lane program's process group; `at`: the
    /// clone is checked out there, detached, as a CI checkout of the trigger commit is. Its exit
    /// code (nil when killed) and output.
    func job(_ arguments: [String], killAfter: Double? = nil, onlySupervisor: Bool = false,
             killWhen: (@Sendable () -> Bool)? = nil, onlyLaneProgram: Bool = false,
             at commit: String? = nil, extra: [String: String] = [:]) async throws -> (status: Int32?, output: String) {
        let clone = try freshClone()
        if let commit { try clone.git("checkout", "-q", "--detach", commit) }
        let log = clone.root + "/job.log"
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw TestFailure("cannot create \(log)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shiplaneBinary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: clone.path)
        var environment = cloneEnvironment(clone)
        // A detached CI checkout: the CI names the branch (GitHub Actions' GITHUB_REF_NAME).
        if commit != nil {
            for (key, value) in ["GITHUB_ACTIONS": "true", "GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch", "GITHUB_EVENT_NAME": "push"] {
                environment[key] = value
            }
        }
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        let started: (any Error)? = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            process.terminationHandler = { _ in continuation.resume(returning: nil) }
            do {
                try process.run()
            } catch {
                continuation.resume(returning: error)
                return
            }
            if let killWhen {
                DispatchQueue.global().async {
                    while process.isRunning && !killWhen() { usleep(20_000) }
                    guard process.isRunning else { return }
                    let children = (try? runProgram("/usr/bin/pgrep", ["-P", "\(process.processIdentifier)"], in: clone.root, environment: clone.environment))?.stdout ?? ""
                    // `onlyLaneProgram`: the lane program dies, `shiplane` (the supervisor) lives on.
                    if !onlyLaneProgram { kill(process.processIdentifier, SIGKILL) }
                    for pid in children.split(separator: "\n").compactMap({ Int32($0) }) { kill(-pid, SIGKILL) }
                }
            }
            if let killAfter {
                DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) {
                    guard process.isRunning else { return }
                    let children = (try? runProgram("/usr/bin/pgrep", ["-P", "\(process.processIdentifier)"], in: clone.root, environment: clone.environment))?.stdout ?? ""
                    kill(process.processIdentifier, SIGKILL)
                    if !onlySupervisor {
                        for pid in children.split(separator: "\n").compactMap({ Int32($0) }) { kill(-pid, SIGKILL) }
                    }
                }
            }
        }
        if let started { throw TestFailure("could not start \(shiplaneBinary): \(started)") }
        process.waitUntilExit()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return (process.terminationReason == .exit ? process.terminationStatus : nil, output)
    }

    /// The refs origin has under `prefix`.
    func originRefs(_ prefix: String) throws -> [String] {
        let listed = try runProgram("/usr/bin/git", ["--git-dir", origin.path, "for-each-ref", "--format=%(refname)", prefix], in: origin.root, environment: origin.environment)
        return listed.stdout.split(separator: "\n").map(String.init)
    }

    /// What is wrong with "exactly one published release of 1.5.0 with every part's bytes".
    func oneReleaseProblems(assets expected: [String: [UInt8]]) throws -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: @autoclosure () -> String) { if !condition { problems.append(problem()) } }
        check((try? origin.git("tag", "--list")) == "v1.4.0\nv1.5.0", "origin's tags: \((try? origin.git("tag", "--list")) ?? "?")")
        check(github.allReleases.map(\.tag) == ["v1.5.0"] && github.allReleases.allSatisfy { !$0.draft }, "releases: \(github.allReleases.map { "\($0.tag) draft \($0.draft)" })")
        check(github.allAssets.map(\.name).sorted() == fanOutAssetNames, "assets: \(github.allAssets.map(\.name))")
        for asset in github.allAssets where expected[asset.name] != asset.bytes {
            problems.append("\(asset.name) holds other bytes than the part built")
        }
        check((try? originRefs("refs/shiplane/parts/")) == [], "part records left on origin: \((try? originRefs("refs/shiplane/parts/")) ?? [])")
        check((try? originRefs("refs/shiplane/run")) == [], "a run record left on origin")
        check((try? originRefs("refs/shiplane/published/")) == ["refs/shiplane/published/release"], "origin has no word of the release published")
        let fsck = try runProgram("/usr/bin/git", ["fsck", "--strict"], in: origin.path, environment: origin.environment)
        check(fsck.status == 0, "git fsck: \(fsck.all)")
        return problems
    }
}

@Suite("A release fanned out over CI jobs", .serialized, .offThePool)
struct FanOutReleaseTests {
    /// `shiplane plan` prints each CI's matrix on standard output alone: GitHub's is JSON for
    /// `fromJSON` with a hosted runner per part, GitLab's and Buildkite's are YAML that Ruby's
    /// YAML reads, with one job per part (runner tags, agent targeting) and the fan-in after them.
    @Test func planPrintsTheMatrixOfEachCI() async throws {
        let (repo, _) = try releasableRepository(lane: fanOutLane)
        let github = try repo.shiplane(["plan", "--format", "github", "release"])
        #expect(github.status == 0, "\(github.all)")
        let matrix = try #require(try JSONSerialization.jsonObject(with: Data(github.stdout.utf8)) as? [String: Any])
        let rows = try #require(matrix["include"] as? [[String: String]])
        #expect(rows.map { $0["part"] ?? "" } == ["linux", "macos", "android"])
        #expect(rows.map { $0["runs-on"] ?? "" } == ["ubuntu-latest", "macos-14", "ubuntu-latest"])
        #expect(rows.first?["command"] == "shiplane release --part linux", "\(rows)")
        #expect(rows[1]["os"] == "macos" && rows[1]["arch"] == "arm64")
        #expect(github.stderr.contains("dry run"), "the dry run's steps go to standard error: \(github.stderr)")
        let status = try repo.git("status", "--porcelain")
        #expect(repo.read("VERSION") == "1.4.0\n" && status.isEmpty, "a plan changes nothing: \(status)")

        for format in ["gitlab", "buildkite"] {
            let plan = try repo.shiplane(["plan", "--format", format, "release"])
            #expect(plan.status == 0, "\(plan.all)")
            let file = repo.root + "/plan-\(format).yml"
            try plan.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            let yaml = try runProgram("/usr/bin/ruby", ["-ryaml", "-rjson", "-e", "puts JSON.generate(YAML.safe_load(ARGF.read))", file],
                                      in: repo.path, environment: repo.environment)
            #expect(yaml.status == 0, "\(format): Ruby reads the YAML: \(yaml.all)\n\(plan.stdout)")
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(yaml.stdout.utf8)) as? [String: Any])
            if format == "gitlab" {
                let fanIn = try #require(parsed["fan-in"] as? [String: Any])
                #expect(fanIn["needs"] as? [String] == ["part:linux", "part:macos", "part:android"])
                #expect(fanIn["script"] as? [String] == ["shiplane release --fan-in"])
                #expect((parsed["part:macos"] as? [String: Any])?["tags"] as? [String] == ["macos", "arm64"])
            } else {
                let steps = try #require(parsed["steps"] as? [[String: Any]])
                #expect(steps.count == 4)
                #expect(steps[1]["agents"] as? [String: String] == ["os": "macos", "arch": "arm64"])
                #expect(steps[3]["depends_on"] as? [String] == ["part-linux", "part-macos", "part-android"])
                #expect(steps[3]["command"] as? String == "shiplane release --fan-in")
            }
        }
        let unknown = try repo.shiplane(["release", "--part", "ios"])
        #expect(unknown.status == 2 && unknown.all.contains("the lane has no part named `ios`") && unknown.all.contains("linux, macos, android"), "\(unknown.all)")
    }

    /// The fan-in before every part recorded its artifacts fails with exit 8 listing the missing
    /// part and publishes nothing; once that part's job ran, it publishes once, says so on origin
    /// and retires the parts' records; a part's job retried after that builds nothing.
    @Test func theFanInWaitsForEveryPartThenPublishesOnce() async throws {
        let world = try await FanOutWorld()
        defer { world.stop() }
        for part in ["linux", "macos"] {
            let ran = try await world.job(["release", "--part", part])
            #expect(ran.status == 0, "\(part): \(ran.output)")
        }
        #expect(try world.originRefs("refs/shiplane/parts/") == ["refs/shiplane/parts/release/linux", "refs/shiplane/parts/release/macos"])
        let early = try await world.job(["release", "--fan-in"])
        #expect(early.status == 8, "\(early.output)")
        #expect(early.output.contains("1 of the release's 3 parts has not recorded their artifacts on origin: android"), "\(early.output)")
        #expect(world.github.allReleases.isEmpty && world.slack.payloads.isEmpty)
        #expect(try world.origin.git("tag", "--list") == "v1.4.0", "nothing pushed")

        let android = try await world.job(["release", "--part", "android"])
        #expect(android.status == 0, "\(android.output)")
        let again = try await world.job(["release", "--part", "android"])
        #expect(again.status == 0 && again.output.contains("already recorded on origin for this commit"), "a retry finds its earlier work: \(again.output)")
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        var expected: [String: [UInt8]] = [:]
        for asset in world.github.allAssets { expected[asset.name] = asset.bytes }
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
        #expect(world.slack.payloads.count == 1)

        let late = try await world.job(["release", "--part", "macos"])
        #expect(late.status == 0 && late.output.contains("was published already"), "\(late.output)")
        #expect(try world.originRefs("refs/shiplane/parts/") == [], "a late part leaves no record")
        let lateFanIn = try await world.job(["release", "--fan-in"])
        #expect(lateFanIn.status == 5 && lateFanIn.output.contains("was published already"), "\(lateFanIn.output)")
        #expect(world.github.allReleases.count == 1 && world.slack.payloads.count == 1)
    }

    /// The jobs the plan names, run as a CI runs them: each part's command (GitHub's matrix rows,
    /// the same words as GitLab's scripts and Buildkite's commands) at once in fresh clones, then
    /// the fan-in's command: one published release with every part's archive, one message.
    @Test func theCommandsThePlanNamesMakeOneRelease() async throws {
        let world = try await FanOutWorld()
        defer { world.stop() }
        let planner = try world.freshClone()
        let plan = try await runProgramAsync(shiplaneBinary, ["plan", "release", "--format", "json"], in: planner.path, environment: world.cloneEnvironment(planner))
        #expect(plan.status == 0, "\(plan.all)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let parts = try #require(parsed["parts"] as? [[String: String]])
        let fanIn = try #require(parsed["fanIn"] as? String)
        // The words after `shiplane` (the plan quotes none here: the lane has no options).
        func words(_ command: String) -> [String] { Array(command.split(separator: " ").map(String.init).dropFirst()) }
        let jobs = parts.map { ($0["command"] ?? "", words($0["command"] ?? "")) }
        try await withThrowingTaskGroup(of: (String, Int32?, String).self) { group in
            for (command, arguments) in jobs {
                group.addTask { let ran = try await world.job(arguments); return (command, ran.status, ran.output) }
            }
            for try await (command, status, output) in group { #expect(status == 0, "\(command): \(output)") }
        }
        let published = try await world.job(words(fanIn))
        #expect(published.status == 0, "\(fanIn): \(published.output)")
        #expect(world.github.allAssets.map(\.name).sorted() == fanOutAssetNames && world.slack.payloads.count == 1, "\(world.github.allAssets.map(\.name))")
        #expect(try world.originRefs("refs/shiplane/parts/") == [])
    }

    /// The GitLab child pipeline and the Buildkite pipeline upload, read by Ruby's YAML and run as
    /// those CIs run them (each part's job at once, the fan-in's after them all, each in a fresh
    /// clone through `sh -c`): each makes one published release with every part's archive and
    /// one message.
    @Test(arguments: ["gitlab", "buildkite"])
    func theGitLabAndBuildkitePipelinesMakeOneRelease(format: String) async throws {
        let world = try await FanOutWorld()
        defer { world.stop() }
        let planner = try world.freshClone()
        let plan = try await runProgramAsync(shiplaneBinary, ["plan", "release", "--format", format], in: planner.path, environment: world.cloneEnvironment(planner))
        #expect(plan.status == 0, "\(plan.all)")
        let pipeline = try CIPipeline(yaml: plan.stdout, format: format, scratch: planner.root, environment: planner.environment)
        #expect(pipeline.jobs.count == 4, "three parts and the fan-in: \(pipeline.jobs.map(\.name))")
        let order = try await pipeline.run { _ in
            let clone = try world.freshClone()
            return (clone.path, world.cloneEnvironment(clone))
        }
        #expect(order.last == "fan-in", "the fan-in runs last: \(order)")
        var expected: [String: [UInt8]] = [:]
        for asset in world.github.allAssets { expected[asset.name] = asset.bytes }
        let problems = try world.oneReleaseProblems(assets: expected)
        #expect(problems.isEmpty, "\(problems)")
        #expect(world.slack.payloads.count == 1)
    }

    /// Two runners build one part at the same moment: origin keeps one record (compare-and-swap),
    /// both jobs succeed, and the release carries that record's bytes.
    @Test func twoRunnersOfOnePartLeaveOneRecord() async throws {
        let world = try await FanOutWorld()
        defer { world.stop() }
        async let first = world.job(["release", "--part", "linux"])
        async let second = world.job(["release", "--part", "linux"])
        let (a, b) = try await (first, second)
        #expect(a.status == 0 && b.status == 0, "\(a.output)\n\(b.output)")
        #expect(try world.originRefs("refs/shiplane/parts/") == ["refs/shiplane/parts/release/linux"])
        for part in ["macos", "android"] { _ = try await world.job(["release", "--part", part]) }
        let fanIn = try await world.job(["release", "--fan-in"])
        #expect(fanIn.status == 0, "\(fanIn.output)")
        #expect(world.github.allAssets.map(\.name).sorted() == fanOutAssetNames)
    }
}
