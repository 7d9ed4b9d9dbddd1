import Foundation
import Testing

/// A versioned repository at 1.2.3 (VERSION, package.json and, with `lockEntries`, a
/// package-lock.json of that many packages) whose origin holds main and v1.2.3; then
/// `bump minor --commit --tag --push` SIGKILLed once its push landed (its step 4, or 5 after the
/// lock file's), so origin holds the release
/// commit, v1.3.0 and the run record. Returns the two commits: where the release started (a CI
/// retry's checkout) and the release commit.
private func killedPastItsPush(lockEntries: Int = 0) throws -> (repo: TemporaryRepository, origin: TemporaryRepository, trigger: String, release: String) {
    let repo = try versionedRepository()
    if lockEntries > 0 {
        var lock = "{\n  \"name\": \"app\",\n  \"version\": \"1.2.3\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n"
        lock += "    \"\": {\n      \"name\": \"app\",\n      \"version\": \"1.2.3\"\n    }"
        let integrity = String(repeating: "q", count: 86)
        for number in 0..<lockEntries {
            let name = "pkg-\(number)"
            lock += ",\n    \"node_modules/\(name)\": {\n      \"version\": \"1.0.\(number % 97)\",\n"
                + "      \"resolved\": \"https://registry.npmjs.org/\(name)/-/\(name)-1.0.\(number % 97).tgz\",\n"
                + "      \"integrity\": \"sha512-\(integrity)\(number)==\",\n      \"license\": \"MIT\"\n    }"
        }
        lock += "\n  }\n}\n"
        try repo.write("package-lock.json", lock)
        try repo.git("add", "package-lock.json")
        try repo.git("commit", "-q", "-m", "chore: lock file")
    }
    let origin = try TemporaryRepository(bare: true)
    try repo.git("remote", "add", "origin", origin.path)
    try repo.git("push", "-q", "origin", "main", "v1.2.3")
    let trigger = try origin.git("rev-parse", "refs/heads/main")
    let killed = try repo.shiplane(catchUpRelease, environment: ["SHIPLANE_FAULT": "after-step:\(lockEntries > 0 ? 5 : 4)"])
    guard killed.status == SIGKILL else { throw TestFailure("the first run was not killed past its push: \(killed.all)") }
    let release = try origin.git("rev-parse", "refs/heads/main")
    guard release != trigger, try origin.git("rev-parse", "refs/heads/main^") == trigger else {
        throw TestFailure("origin's main is not one release commit past the trigger commit")
    }
    return (repo, origin, trigger, release)
}

private let catchUpRelease = ["bump", "minor", "--commit", "--tag", "--push"]

/// A CI runner's checkout of `origin`: a clone in a folder of its own (removed with the holder),
/// detached at `commit`, as CIs check out the commit that triggered the pipeline.
private func ciCheckout(of origin: TemporaryRepository, at commit: String) throws -> (holder: TemporaryRepository, path: String) {
    let holder = try TemporaryRepository(commit: false)
    try holder.git("clone", "-q", origin.path, holder.path + "/clone")
    let clone = holder.path + "/clone"
    let detached = try runProgram("/usr/bin/git", ["checkout", "-q", "--detach", commit], in: clone, environment: holder.environment)
    guard detached.status == 0 else { throw TestFailure("git checkout --detach: \(detached.all)") }
    return (holder, clone)
}

private func git(_ arguments: [String], in folder: String, _ environment: [String: String]) throws -> String {
    try runProgram("/usr/bin/git", arguments, in: folder, environment: environment).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The variables of a CI job that a retry of the release runs in: each CI's own way of naming
/// the branch of a detached checkout (`CIBranch`), and that the pipeline is not a pull request's.
struct CatchUpCI: Sendable, CustomTestStringConvertible {
    var name: String
    var variables: @Sendable (_ commit: String, _ folder: String) -> [String: String]
    var testDescription: String { name }

    static let all: [CatchUpCI] = [
        CatchUpCI(name: "GitLab CI") { commit, folder in
            ["CI": "true", "GITLAB_CI": "true", "CI_SERVER": "yes", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main",
             "CI_COMMIT_REF_SLUG": "main", "CI_DEFAULT_BRANCH": "main", "CI_PIPELINE_SOURCE": "push", "CI_COMMIT_SHA": commit,
             "CI_JOB_ID": "4711", "CI_PIPELINE_ID": "815", "CI_PROJECT_DIR": folder]
        },
        CatchUpCI(name: "Buildkite") { commit, folder in
            ["CI": "true", "BUILDKITE": "true", "BUILDKITE_BRANCH": "main", "BUILDKITE_PULL_REQUEST": "false", "BUILDKITE_TAG": "",
             "BUILDKITE_COMMIT": commit, "BUILDKITE_PIPELINE_DEFAULT_BRANCH": "main", "BUILDKITE_RETRY_COUNT": "1",
             "BUILDKITE_SOURCE": "webhook", "BUILDKITE_BUILD_CHECKOUT_PATH": folder]
        },
        // A multibranch pipeline: BRANCH_NAME; Jenkins sets no CI variable.
        CatchUpCI(name: "Jenkins (multibranch, BRANCH_NAME)") { commit, folder in
            ["JENKINS_URL": "http://jenkins.example/", "BUILD_NUMBER": "12", "BUILD_ID": "12", "JOB_NAME": "app/main",
             "BRANCH_NAME": "main", "GIT_BRANCH": "main", "GIT_COMMIT": commit, "WORKSPACE": folder]
        },
        // A freestyle job with the git plugin: GIT_BRANCH as origin/NAME.
        CatchUpCI(name: "Jenkins (git plugin, GIT_BRANCH=origin/main)") { commit, folder in
            ["JENKINS_URL": "http://jenkins.example/", "BUILD_NUMBER": "12", "JOB_NAME": "app-release",
             "GIT_BRANCH": "origin/main", "GIT_COMMIT": commit, "WORKSPACE": folder]
        },
    ]
}

/// A CI retry of a release killed past its push checks out the commit that triggered the pipeline
/// (the release commit's parent), detached, with the CI's own variables: it moves forward to the
/// release commit and finishes the release once, whichever CI runs it.
@Suite(.serialized, .offThePool) struct FreshCloneCatchUpCITests {
    @Test(arguments: CatchUpCI.all) func aRetryAtTheTriggerCommitFinishesTheReleaseOnce(_ ci: CatchUpCI) throws {
        let (_, origin, trigger, release) = try killedPastItsPush()
        let (holder, clone) = try ciCheckout(of: origin, at: trigger)
        let environment = holder.environment.merging(ci.variables(trigger, clone)) { $1 }
        let again = try runProgram(shiplaneBinary, catchUpRelease, in: clone, environment: environment)
        #expect(again.status == 0, "\(again.all)")
        #expect(again.stderr.contains("so the checkout moved forward to it to finish the release"), "\(again.all)")
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version: \(again.all)")
        #expect(try origin.git("rev-parse", "refs/heads/main") == release, "no second release commit")
        #expect(try origin.git("rev-parse", "v1.3.0^{commit}") == release)
        #expect(try git(["rev-parse", "HEAD"], in: clone, environment) == release)
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0,
                "the record on origin is retired")
        #expect(try git(["status", "--porcelain"], in: clone, environment).isEmpty)
        #expect(try git(["for-each-ref", "refs/shiplane/"], in: clone, environment).isEmpty, "no scratch ref left")
        try origin.git("fsck", "--strict")
    }
}

/// The catch-up's move killed half-way: the next retry in that checkout finishes the move (files
/// already at the release commit's version are the move's own work) and the release; a change of
/// someone's still stops it with exit 7 and is kept; what a kill leaves of the move (its scratch
/// ref, its staging folder) does not matter.
@Suite(.serialized, .offThePool) struct FreshCloneCatchUpKillTests {
    private static let github = ["CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main",
                                 "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch"]

    /// The release finished from `clone`: exit 0, one version, HEAD at the release commit, a clean
    /// tree, no record, no scratch ref.
    private func expectFinished(_ result: CommandOutput, clone: String, environment: [String: String], origin: TemporaryRepository, release: String,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(result.status == 0, "\(result.all)", sourceLocation: sourceLocation)
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version: \(result.all)", sourceLocation: sourceLocation)
        #expect(try origin.git("rev-parse", "refs/heads/main") == release, sourceLocation: sourceLocation)
        #expect(try git(["rev-parse", "HEAD"], in: clone, environment) == release, "\(result.all)", sourceLocation: sourceLocation)
        let status = try git(["status", "--porcelain"], in: clone, environment)
        #expect(status.isEmpty, "\(status)", sourceLocation: sourceLocation)
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status != 0,
                sourceLocation: sourceLocation)
        #expect(try git(["for-each-ref", "refs/shiplane/"], in: clone, environment).isEmpty, sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: clone + "/.git/shiplane-move"), sourceLocation: sourceLocation)
    }

    /// The state a move killed between two files leaves (VERSION already at the release commit's
    /// version in the work tree, package.json in the work tree and the index; HEAD and the rest at
    /// the trigger commit), with a scratch ref at a commit origin never had and a staging folder
    /// holding a file cut short: the retry finishes the move and the release.
    @Test func aMoveKilledBetweenItsFilesIsFinishedByTheNextRetry() throws {
        let (_, origin, trigger, release) = try killedPastItsPush()
        let (holder, clone) = try ciCheckout(of: origin, at: trigger)
        let environment = holder.environment.merging(Self.github) { $1 }
        try Data(try git(["show", "\(release):VERSION"], in: clone, environment).utf8 + [0x0A]).write(to: URL(fileURLWithPath: clone + "/VERSION"))
        #expect(try runProgram("/usr/bin/git", ["checkout", release, "--", "package.json"], in: clone, environment: environment).status == 0)
        let moved = try git(["status", "--porcelain"], in: clone, environment)
        #expect(moved.contains("M VERSION") && moved.contains("M  package.json"), "\(moved)")
        // What a kill leaves: the scratch ref (here at a commit of nobody's) and the staging folder.
        let stray = try git(["commit-tree", "-m", "stray", "\(trigger)^{tree}"], in: clone, environment)
        #expect(try runProgram("/usr/bin/git", ["update-ref", "refs/shiplane/catch-up", stray], in: clone, environment: environment).status == 0)
        try FileManager.default.createDirectory(atPath: clone + "/.git/shiplane-move", withIntermediateDirectories: true)
        try Data("1.3".utf8).write(to: URL(fileURLWithPath: clone + "/.git/shiplane-move/0"))

        let again = try runProgram(shiplaneBinary, catchUpRelease, in: clone, environment: environment)
        #expect(again.stderr.contains("so the checkout moved forward to it to finish the release"), "\(again.all)")
        try expectFinished(again, clone: clone, environment: environment, origin: origin, release: release)
        try origin.git("fsck", "--strict")
    }

    /// After a move killed between its files, a change of someone's to a file the move writes
    /// (in the work tree, or staged) stops the next retry: exit 7, the change kept, HEAD still at
    /// the trigger commit, the move's own work as it was.
    @Test func aChangeOfSomeonesAfterAKilledMoveStillStopsIt() throws {
        let (_, origin, trigger, release) = try killedPastItsPush()
        let releaseVersion = try origin.git("show", "\(release):VERSION") + "\n"
        for staged in [false, true] {
            let (holder, clone) = try ciCheckout(of: origin, at: trigger)
            let environment = holder.environment.merging(Self.github) { $1 }
            try Data(releaseVersion.utf8).write(to: URL(fileURLWithPath: clone + "/VERSION"))
            let edited = "{ \"name\": \"app\", \"version\": \"1.2.3\", \"private\": true }\n"
            try Data(edited.utf8).write(to: URL(fileURLWithPath: clone + "/package.json"))
            if staged { #expect(try runProgram("/usr/bin/git", ["add", "package.json"], in: clone, environment: environment).status == 0) }
            let refused = try runProgram(shiplaneBinary, catchUpRelease, in: clone, environment: environment)
            #expect(refused.status == 7, "\(refused.all)")
            #expect(refused.all.contains("package.json"), "the changed file is named: \(refused.all)")
            #expect(!refused.all.contains("VERSION,"), "the move's own work is not called a change: \(refused.all)")
            #expect(try String(contentsOfFile: clone + "/package.json", encoding: .utf8) == edited)
            #expect(try String(contentsOfFile: clone + "/VERSION", encoding: .utf8) == releaseVersion)
            #expect(try git(["rev-parse", "HEAD"], in: clone, environment) == trigger)
            #expect(!FileManager.default.fileExists(atPath: clone + "/.git/shiplane-move"))
        }
        #expect(try origin.git("rev-parse", "refs/heads/main") == release)
        #expect(try runProgram("/usr/bin/git", ["cat-file", "-t", "refs/shiplane/run"], in: origin.path, environment: origin.environment).status == 0,
                "the record stays on origin for a retry that can finish it")
    }

    /// SIGKILL to the real binary while its catch-up moves the checkout — a release commit that
    /// rewrote a large package-lock.json, written while the kill lands — then the same command in
    /// the same checkout: it finishes the move and the release, every trial. The kill lands at a
    /// random moment after the move's staging folder appears (`SHIPLANE_CATCH_UP_KILL_TRIALS`,
    /// default 6).
    @Test func killedInsideTheMoveThenRetriedInTheSameCheckout() throws {
        let trials = Int(ProcessInfo.processInfo.environment["SHIPLANE_CATCH_UP_KILL_TRIALS"] ?? "") ?? 6
        let template = try killedPastItsPush(lockEntries: 60_000)
        var landed: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<trials {
            let origin = try TemporaryRepository(copying: template.origin)
            let (holder, clone) = try ciCheckout(of: origin, at: template.trigger)
            let environment = holder.environment.merging(Self.github) { $1 }
            let delay = UInt32.random(in: 0...4_000, using: &generator)
            let killed = try runAndKill(in: clone, environment: environment, afterTheMoveStarts: delay)
            let head = try git(["rev-parse", "HEAD"], in: clone, environment)
            let changed = try git(["status", "--porcelain"], in: clone, environment)
            let staging = FileManager.default.fileExists(atPath: clone + "/.git/shiplane-move")
            let moment = killed != nil ? "finished before the kill"
                : head == template.release ? "after the move"
                : staging ? "inside the move, a file being written" : changed.isEmpty ? "before any file moved" : "inside the move, between files"
            landed[moment, default: 0] += 1
            let again = try runProgram(shiplaneBinary, catchUpRelease, in: clone, environment: environment)
            try expectFinished(again, clone: clone, environment: environment, origin: origin, release: template.release)
            #expect(try git(["show", "HEAD:package-lock.json"], in: clone, environment)
                        == (try String(contentsOfFile: clone + "/package-lock.json", encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines),
                    "trial \(trial): the lock file is the release commit's, whole")
            try origin.git("fsck", "--strict")
        }
        print("FreshCloneCatchUpKillTests: \(trials) trials, the kill landed: \(landed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        #expect(landed.filter { $0.key.hasPrefix("inside the move") }.values.reduce(0, +) > 0, "no kill landed inside the move: \(landed)")
    }

    /// Starts the release in `clone`, waits for its move's staging folder, sleeps `delay` µs and
    /// SIGKILLs `shiplane` and any process group of its children. Returns its exit code, nil when
    /// the kill ended it.
    private func runAndKill(in clone: String, environment: [String: String], afterTheMoveStarts delay: UInt32) throws -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shiplaneBinary)
        process.arguments = catchUpRelease
        process.currentDirectoryURL = URL(fileURLWithPath: clone)
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let staging = clone + "/.git/shiplane-move"
        let deadline = Date().addingTimeInterval(120)
        // No sleep between the looks: the move of a 10 MB file takes milliseconds.
        var info = stat()
        while process.isRunning, lstat(staging, &info) != 0, Date() < deadline {}
        if delay > 0 { usleep(delay) }
        if process.isRunning {
            let children = try runProgram("/usr/bin/pgrep", ["-P", "\(process.processIdentifier)"], in: clone, environment: environment)
            kill(process.processIdentifier, SIGKILL)
            for pid in children.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(-pid, SIGKILL); kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }
}
