import Foundation
import Testing

/// A monorepo's packages released by many CI jobs at once (issue 42, item 4): the plan from
/// `shiplane version --changed --json`, then one job per package — each a fresh clone of an
/// origin behind `git http-backend`, running the built `shiplane bump LEVEL --package NAME
/// --commit --tag --push` — wave by wave, many jobs at a time. Checked with the git command:
/// every planned package released exactly once (one release commit, one tag, on origin's main),
/// no other package touched, dependents after their dependencies, no record left on origin, and
/// each package's changelog naming its own commits.
///
/// The suite's size is small (12 packages, 6 released, 4 jobs at a time); with
/// `SHIPLANE_SCALE=1` it is the issue's: 200 packages, 60 released, 16 jobs at a time, and it
/// prints the wall time beside one job releasing the same 60 one after another (no assertion on
/// time).
@Suite("Monorepo packages released by concurrent jobs, each from a fresh clone, to one origin", .serialized, .offThePool)
struct MonorepoParallelReleaseTests {
    static let token = "ghp_" + String(repeating: "M0n", count: 12)
    static let scaled = ProcessInfo.processInfo.environment["SHIPLANE_SCALE"] == "1"

    /// `count` packages p000…, all at 1.0.0 with a tag each; the first `changed - 3` get a
    /// releasing commit (feat or fix); p001 depends on p000 (package.json), p003 on p000
    /// (package.json), p002 on p001 (`depends_on`): three dependents released after p000.
    final class Monorepo: @unchecked Sendable {
        let repo: TemporaryRepository
        let bare: String
        let server: GitHTTPServer
        let count: Int
        let changedCount: Int

        static func name(_ index: Int) -> String { "p" + String(format: "%03d", index) }

        init(count: Int, released: Int) async throws {
            self.count = count
            changedCount = released - 3
            repo = try TemporaryRepository(commit: false)
            var stream = ""
            func blob(_ path: String, _ text: String) -> String {
                "M 100644 inline \(path)\ndata \(text.utf8.count)\n\(text)\n"
            }
            var files = ""
            var yaml = "packages:\n"
            for index in 0..<count {
                let name = Self.name(index)
                files += blob("packages/\(name)/VERSION", "1.0.0\n")
                yaml += "  - { name: \(name), path: packages/\(name)" + (index == 2 ? ", depends_on: [p001]" : "") + " }\n"
                if index == 1 || index == 3 {
                    files += blob("packages/\(name)/package.json", "{\"name\":\"@mono/\(name)\",\"version\":\"1.0.0\",\"dependencies\":{\"@mono/p000\":\"^1.0.0\"}}\n")
                } else if index == 0 {
                    files += blob("packages/\(name)/package.json", "{\"name\":\"@mono/p000\",\"version\":\"1.0.0\"}\n")
                }
            }
            files += blob(".shiplane.yml", yaml)
            let date = 1_700_000_000
            stream += "commit refs/heads/main\nmark :1\ncommitter Test <t@example.com> \(date) +0000\ndata 13\nchore: start\n\(files)\n"
            for index in 0..<count { stream += "reset refs/tags/\(Self.name(index))-v1.0.0\nfrom :1\n\n" }
            // Changed packages: 0, then the ones after the dependents (4, 5, …).
            var changed = [0]
            var next = 4
            while changed.count < changedCount { changed.append(next); next += 1 }
            for (offset, index) in changed.enumerated() {
                let name = Self.name(index)
                let message = offset % 2 == 0 ? "feat(\(name)): new thing in \(name)\n" : "fix(\(name)): a bug in \(name)\n"
                stream += "commit refs/heads/main\nmark :\(offset + 2)\ncommitter Test <t@example.com> \(date + offset + 1) +0000\n"
                stream += "data \(message.utf8.count)\n\(message)from :\(offset + 1)\n" + blob("packages/\(name)/src.txt", "change \(offset)\n") + "\n"
            }
            // A commit touching no package, and one that does not release (docs) touching one that does not change.
            stream += "commit refs/heads/main\nmark :\(changed.count + 2)\ncommitter Test <t@example.com> \(date + 999_000) +0000\n"
            stream += "data 19\ndocs: top readme !\nfrom :\(changed.count + 1)\n" + blob("README.md", "# mono\n") + blob("packages/\(Self.name(count - 1))/NOTES.md", "notes\n") + "\n"
            let input = repo.root + "/import.txt"
            try Data(stream.utf8).write(to: URL(fileURLWithPath: input))
            let imported = try runProgram("/bin/sh", ["-c", "git fast-import --quiet < \"$0\" && git reset -q --hard main", input], in: repo.path, environment: repo.environment)
            guard imported.status == 0 else { throw TestFailure("fast-import: \(imported.all)") }
            let served = repo.root + "/served"
            try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
            bare = served + "/origin.git"
            try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", bare], in: served, environment: repo.environment)
            try repo.git("push", "-q", bare, "main", "--tags")
            server = try await GitHTTPServer.start(projectRoot: served, username: "x-access-token", password: MonorepoParallelReleaseTests.token, environment: repo.environment)
        }

        /// The names released by their own commits.
        var changedNames: Set<String> {
            var names: Set<String> = [Self.name(0)]
            var next = 4
            while names.count < changedCount { names.insert(Self.name(next)); next += 1 }
            return names
        }

        func origin(_ arguments: String...) throws -> String {
            let output = try runProgram("/usr/bin/git", ["--git-dir", bare] + arguments, in: repo.root, environment: repo.environment)
            guard output.status == 0 else { throw TestFailure("git \(arguments.joined(separator: " ")): \(output.stderr)") }
            return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A fresh clone in its own folder (a CI job's checkout), made by the git command.
        func freshClone(_ name: String) throws -> String {
            let folder = repo.root + "/jobs/" + name
            try FileManager.default.createDirectory(atPath: repo.root + "/jobs", withIntermediateDirectories: true)
            let url = server.url("origin.git").replacingOccurrences(of: "http://", with: "http://x-access-token:\(MonorepoParallelReleaseTests.token)@")
            let cloned = try runProgram("/usr/bin/git", ["clone", "-q", url, folder], in: repo.root, environment: repo.environment)
            guard cloned.status == 0 else { throw TestFailure("clone: \(cloned.all)") }
            // The job's origin URL carries no token: shiplane takes it from SHIPLANE_GIT_TOKEN.
            _ = try runProgram("/usr/bin/git", ["remote", "set-url", "origin", server.url("origin.git")], in: folder, environment: repo.environment)
            return folder
        }

        func shiplane(_ arguments: [String], in folder: String) async throws -> CommandOutput {
            var environment = repo.environment
            environment["SHIPLANE_GIT_TOKEN"] = MonorepoParallelReleaseTests.token
            return try await runProgramAsync(shiplaneBinary, arguments, in: folder, environment: environment)
        }
    }

    struct PlannedPart: Decodable {
        var name: String
        var level: String
        var wave: Int
        var after: [String]
        var lastVersion: String?
    }

    struct Plan: Decodable {
        var packages: [PlannedPart]
        var waves: [[String]]
        var unchanged: Int
    }

    static func plan(_ mono: Monorepo) async throws -> Plan {
        let folder = try mono.freshClone("plan-" + UUID().uuidString)
        let output = try await mono.shiplane(["version", "--changed", "--json"], in: folder)
        #expect(output.status == 0, "\(output.all)")
        return try JSONDecoder().decode(Plan.self, from: Data(output.stdout.utf8))
    }

    static func next(_ level: String) -> String {
        switch level {
        case "major": "2.0.0"
        case "minor": "1.1.0"
        default: "1.0.1"
        }
    }

    /// Runs each wave's jobs, `parallel` at a time, each in a fresh clone; returns every job's output.
    static func release(_ plan: Plan, in mono: Monorepo, parallel: Int) async throws -> [String: CommandOutput] {
        var outputs: [String: CommandOutput] = [:]
        let levels = Dictionary(uniqueKeysWithValues: plan.packages.map { ($0.name, $0.level) })
        for wave in plan.waves {
            var pending = wave[...]
            try await withThrowingTaskGroup(of: (String, CommandOutput).self) { group in
                func startNext() {
                    guard let name = pending.popFirst(), let level = levels[name] else { return }
                    group.addTask {
                        let folder = try mono.freshClone(name)
                        return (name, try await mono.shiplane(["bump", level, "--package", name, "--commit", "--tag", "--push"], in: folder))
                    }
                }
                for _ in 0..<parallel { startNext() }
                while let (name, output) = try await group.next() {
                    outputs[name] = output
                    startNext()
                }
            }
        }
        return outputs
    }

    /// Every planned package released exactly once on origin's main, nothing else touched.
    static func expectReleasedOnce(_ plan: Plan, _ mono: Monorepo, outputs: [String: CommandOutput]) async throws {
        for (name, output) in outputs { #expect(output.status == 0, "\(name): \(output.all)") }
        let fsck = try runProgram("/usr/bin/git", ["--git-dir", mono.bare, "fsck", "--strict", "--no-dangling"], in: mono.repo.root, environment: mono.repo.environment)
        #expect(fsck.status == 0, "\(fsck.all)")
        let log = try mono.origin("log", "--format=%H %s", "main").split(separator: "\n").map(String.init)
        let planned = Set(plan.packages.map(\.name))
        var releaseCommits: [String: String] = [:]
        for part in plan.packages {
            let tag = "\(part.name)-v\(next(part.level))"
            let subjects = log.filter { $0.hasSuffix(" chore(release): \(tag)") }
            #expect(subjects.count == 1, "\(part.name): one release commit on main, found \(subjects.count)")
            let commit = try mono.origin("rev-parse", tag + "^{commit}")
            releaseCommits[part.name] = commit
            #expect(subjects.first?.hasPrefix(commit) == true, "\(tag) names its release commit on main")
            #expect(try mono.origin("show", "\(tag):packages/\(part.name)/VERSION") == next(part.level))
            #expect(try mono.origin("show", "main:packages/\(part.name)/VERSION") == next(part.level))
            let tags = try mono.origin("tag", "--list", "\(part.name)-v*").split(separator: "\n")
            #expect(tags.count == 2, "\(part.name): 1.0.0 and one release: \(tags)")
        }
        for index in 0..<mono.count where !planned.contains(Monorepo.name(index)) {
            let name = Monorepo.name(index)
            #expect(try mono.origin("tag", "--list", "\(name)-v*") == "\(name)-v1.0.0", "\(name) not released")
            #expect(try mono.origin("show", "main:packages/\(name)/VERSION") == "1.0.0")
        }
        #expect(log.filter { $0.contains(" chore(release): ") }.count == plan.packages.count, "no other release commit")
        // Dependents after their dependencies, in origin's history.
        for part in plan.packages {
            for dependency in part.after {
                guard let mine = releaseCommits[part.name], let theirs = releaseCommits[dependency] else { continue }
                let ancestor = try runProgram("/usr/bin/git", ["--git-dir", mono.bare, "merge-base", "--is-ancestor", theirs, mine], in: mono.repo.root, environment: mono.repo.environment)
                #expect(ancestor.status == 0, "\(dependency) released before \(part.name)")
            }
        }
        #expect(try mono.origin("for-each-ref", "refs/shiplane").isEmpty, "no run record left on origin")
    }

    @Test func everyChangedPackageAndItsDependentsAreReleasedOnceByConcurrentJobs() async throws {
        let (count, released, parallel) = Self.scaled ? (200, 60, 16) : (12, 6, 4)
        let mono = try await Monorepo(count: count, released: released)
        defer { mono.server.stop() }
        let plan = try await Self.plan(mono)
        #expect(plan.packages.count == released, "\(plan.packages.map(\.name))")
        #expect(Set(plan.packages.map(\.name)) == mono.changedNames.union(["p001", "p002", "p003"]))
        #expect(plan.unchanged == count - released)
        #expect(plan.waves.count == 3 && plan.waves[1] == ["p001", "p003"] && plan.waves[2] == ["p002"], "\(plan.waves)")
        #expect(plan.packages.first { $0.name == "p000" }?.level == "minor")
        #expect(plan.packages.first { $0.name == "p004" }?.level == "patch")
        #expect(plan.packages.first { $0.name == "p001" }?.level == "patch")

        let started = Date()
        let outputs = try await Self.release(plan, in: mono, parallel: parallel)
        let parallelTime = Date().timeIntervalSince(started)
        try await Self.expectReleasedOnce(plan, mono, outputs: outputs)

        // The packages' changelogs, from a fresh clone: each names its own commit, not another's.
        let reader = try mono.freshClone("reader")
        for name in ["p000", "p004", "p005"] {
            let changelog = try await mono.shiplane(["changelog", "--all", "--package", name], in: reader)
            #expect(changelog.status == 0, "\(changelog.all)")
            #expect(changelog.stdout.contains(name == "p000" ? "1.1.0" : (name == "p004" ? "1.0.1" : "1.1.0")), "\(name): \(changelog.stdout)")
            #expect(changelog.stdout.contains("in \(name)"), "\(name)'s own commit: \(changelog.stdout)")
            let others = ["p000", "p004", "p005"].filter { $0 != name }
            #expect(!others.contains { changelog.stdout.contains("in \($0)") }, "\(name)'s changelog names no other package's commit: \(changelog.stdout)")
        }
        // Planned again after the release: nothing left.
        let again = try await Self.plan(mono)
        #expect(again.packages.isEmpty, "\(again.packages.map(\.name))")

        if Self.scaled {
            // The same 60 releases by one job, one after another, on a fresh origin of the same history.
            let serial = try await Monorepo(count: count, released: released)
            defer { serial.server.stop() }
            let serialPlan = try await Self.plan(serial)
            let start = Date()
            let folder = try serial.freshClone("one-job")
            var serialOutputs: [String: CommandOutput] = [:]
            for part in serialPlan.packages.sorted(by: { ($0.wave, $0.name) < ($1.wave, $1.name) }) {
                serialOutputs[part.name] = try await serial.shiplane(["bump", part.level, "--package", part.name, "--commit", "--tag", "--push"], in: folder)
            }
            let serialTime = Date().timeIntervalSince(start)
            try await Self.expectReleasedOnce(serialPlan, serial, outputs: serialOutputs)
            print("MonorepoParallelReleaseTests: \(released) of \(count) packages: \(parallel) concurrent jobs (fresh clone each) \(String(format: "%.1f", parallelTime)) s; one job, one after another \(String(format: "%.1f", serialTime)) s")
        } else {
            print("MonorepoParallelReleaseTests: \(released) of \(count) packages by \(parallel) concurrent jobs in \(String(format: "%.1f", parallelTime)) s")
        }
    }

    /// `shiplane plan` without a lane plans the packages as the matrix: GitHub's rows for one wave
    /// carry the lane parts' keys (part, runs-on, command); the GitLab child pipeline (a stage per
    /// wave, `needs:`) and the Buildkite upload (`depends_on`), read by Ruby's YAML and run as
    /// those CIs run them (every ready job at once, each in a fresh clone through `sh -c`),
    /// release every planned package once, dependents after their dependencies.
    @Test(arguments: ["gitlab", "buildkite"])
    func thePlansPipelinesReleaseEveryPackageOnce(format: String) async throws {
        let mono = try await Monorepo(count: 8, released: 5)
        defer { mono.server.stop() }
        let planner = try mono.freshClone("planner")
        let json = try await mono.shiplane(["plan", "--format", "json"], in: planner)
        #expect(json.status == 0, "\(json.all)")
        let plan = try JSONDecoder().decode(Plan.self, from: Data(json.stdout.utf8))
        #expect(plan.waves == [["p000", "p004"], ["p001", "p003"], ["p002"]], "\(plan.waves)")
        let github = try await mono.shiplane(["plan", "--format", "github", "--wave", "2"], in: planner)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(github.stdout.utf8)) as? [String: [[String: String]]])["include"]
        #expect(rows?.map { $0["part"] ?? "" } == ["p001", "p003"], "\(github.all)")
        #expect(rows?.first?["runs-on"] == "ubuntu-latest" && rows?.first?["command"] == "shiplane bump patch --package p001 --commit --tag --push", "\(github.stdout)")
        let lane = try await mono.shiplane(["plan", "--wave", "2", "release"], in: planner)
        #expect(lane.status == 2 && lane.stderr.contains("--wave is for a monorepo's packages"), "\(lane.all)")

        let yaml = try await mono.shiplane(["plan", "--format", format], in: planner)
        #expect(yaml.status == 0, "\(yaml.all)")
        var environment = mono.repo.environment
        environment["SHIPLANE_GIT_TOKEN"] = MonorepoParallelReleaseTests.token
        let pipeline = try CIPipeline(yaml: yaml.stdout, format: format, scratch: mono.repo.root, environment: environment)
        #expect(pipeline.jobs.count == 5, "\(pipeline.jobs.map(\.name))")
        let jobEnvironment = environment
        let order = try await pipeline.run { job in
            (try mono.freshClone(job.name.replacingOccurrences(of: ":", with: "-") + "-" + UUID().uuidString), jobEnvironment)
        }
        #expect(order.firstIndex { $0.hasSuffix("p002") } ?? 0 > order.firstIndex { $0.hasSuffix("p001") } ?? 9, "\(order)")
        try await Self.expectReleasedOnce(plan, mono, outputs: [:])
    }

    /// A job whose release commit and tag are signed (git's `commit.gpgSign`, `tag.gpgSign`, an SSH
    /// key) and whose push origin refuses because another package's release landed first: the
    /// copy put on top of origin's main is signed again, and so is the tag moved to it — `git
    /// verify-commit` and `git verify-tag` on a fresh clone of origin accept both, and the tag's
    /// message holds one signature, not the old one plus a new one.
    @Test func aSignedReleasePutOnTopOfANewerMainIsSignedAgain() async throws {
        let mono = try await Monorepo(count: 6, released: 4)
        defer { mono.server.stop() }
        let first = try mono.freshClone("first")
        let second = try mono.freshClone("second")
        let key = try makeSSHKey(["-t", "ed25519"], named: "signing", in: mono.repo.root)
        let allowed = mono.repo.root + "/allowed_signers"
        try Data(("* " + (try String(contentsOfFile: key + ".pub", encoding: .utf8))).utf8).write(to: URL(fileURLWithPath: allowed))
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key), ("commit.gpgSign", "true"), ("tag.gpgSign", "true"),
                              ("gpg.ssh.allowedSignersFile", allowed)] {
            _ = try runProgram("/usr/bin/git", ["config", name, value], in: second, environment: mono.repo.environment)
        }
        let landed = try await mono.shiplane(["bump", "minor", "--package", "p000", "--commit", "--tag", "--push"], in: first)
        #expect(landed.status == 0, "\(landed.all)")
        let signed = try await mono.shiplane(["bump", "minor", "--package", "p004", "--commit", "--tag", "--push"], in: second)
        #expect(signed.status == 0, "\(signed.all)")
        #expect(signed.all.contains("(another release landed first)"), "the push was refused once and the commit put on top: \(signed.all)")
        let check = try mono.freshClone("check")
        _ = try runProgram("/usr/bin/git", ["config", "gpg.ssh.allowedSignersFile", allowed], in: check, environment: mono.repo.environment)
        let subjects = try runProgram("/usr/bin/git", ["log", "-2", "--format=%s", "main"], in: check, environment: mono.repo.environment).stdout
        #expect(subjects == "chore(release): p004-v1.1.0\nchore(release): p000-v1.1.0\n", "\(subjects)")
        let commit = try runProgram("/usr/bin/git", ["verify-commit", "main"], in: check, environment: mono.repo.environment)
        #expect(commit.status == 0 && commit.stderr.contains("Good \"git\" signature"), "\(commit.all)")
        let tag = try runProgram("/usr/bin/git", ["verify-tag", "p004-v1.1.0"], in: check, environment: mono.repo.environment)
        #expect(tag.status == 0 && tag.stderr.contains("Good \"git\" signature"), "\(tag.all)")
        let target = try runProgram("/usr/bin/git", ["rev-parse", "p004-v1.1.0^{commit}", "main"], in: check, environment: mono.repo.environment).stdout.split(separator: "\n")
        #expect(target.count == 2 && target[0] == target[1], "the tag names the copy on main: \(target)")
        let object = try runProgram("/usr/bin/git", ["cat-file", "-p", "p004-v1.1.0"], in: check, environment: mono.repo.environment).stdout
        #expect(object.components(separatedBy: "-----BEGIN SSH SIGNATURE-----").count == 2, "one signature: \(object)")
        #expect(try runProgram("/usr/bin/git", ["fsck", "--strict"], in: check, environment: mono.repo.environment).status == 0)
        #expect(try mono.origin("for-each-ref", "refs/shiplane").isEmpty)
    }

    /// Two jobs release the same package at once: one lands; the other finds the tag on origin
    /// and stops before anything is sent, rolled back (nothing of it on origin or in its clone).
    @Test func twoJobsReleasingOnePackageReleaseItOnce() async throws {
        let mono = try await Monorepo(count: 6, released: 4)
        defer { mono.server.stop() }
        let first = try mono.freshClone("first")
        let second = try mono.freshClone("second")
        let one = try await mono.shiplane(["bump", "minor", "--package", "p000", "--commit", "--tag", "--push"], in: first)
        #expect(one.status == 0, "\(one.all)")
        let other = try await mono.shiplane(["bump", "minor", "--package", "p000", "--commit", "--tag", "--push"], in: second)
        #expect(other.status == 1, "\(other.all)")
        #expect(other.stderr.contains("origin already has p000-v1.1.0: another job released p000 first"), "\(other.all)")
        #expect(try mono.origin("log", "--format=%s", "main").split(separator: "\n").filter { $0.contains("chore(release): p000-v1.1.0") }.count == 1)
        let status = try runProgram("/usr/bin/git", ["status", "--porcelain"], in: second, environment: mono.repo.environment)
        #expect(status.stdout.isEmpty, "the second clone is as it was: \(status.stdout)")
        let tags = try runProgram("/usr/bin/git", ["tag", "--list", "p000-v1.1.0"], in: second, environment: mono.repo.environment)
        #expect(tags.stdout.isEmpty, "its tag was rolled back")
        #expect(try mono.origin("for-each-ref", "refs/shiplane").isEmpty)
    }
}
