import Foundation
import Testing

/// The local record and origin agree: a run finished in a fresh clone is retired in the checkout
/// that started it (not resumed: its notification would go out twice), and `resume` never undoes
/// what the run did before its point of no return.
@Suite("Local and remote records agree; resume never undoes past the point of no return", .serialized, .offThePool)
struct StaleRecordTests {
    /// A repository at 1.2.3 with a `release` lane (bump, commit, tag, push, then `after`), its
    /// bare origin holding main and v1.2.3.
    private func repository(after: (_ root: String) -> String) throws -> (repo: TemporaryRepository, origin: TemporaryRepository) {
        let repo = try versionedRepository()
        try repo.write("Lanes/Release.swift", """
        import Shiplane
        struct Release: Lane {
            func run(_ lane: LaneContext) async throws {
                let version = try lane.bumpVersion(.minor)
                try lane.commitVersionBump()
                try lane.addGitTag("v\\(version)")
                try await lane.push(tags: ["v\\(version)"])
                \(after(repo.root))
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        return (repo, origin)
    }

    @Test(arguments: [["release"], ["resume"]])
    func aRunAFreshCloneFinishedIsRetiredHereNotResumed(_ command: [String]) throws {
        let (repo, origin) = try repository { "try await lane.sh(\"sh\", \"-c\", \"echo sent >> '\($0)/sent'\")" }
        // Killed after the push: origin has the release and the run's record.
        let killed = try repo.shiplane(["release"], environment: ["SHIPLANE_FAULT": "after-step:4"])
        #expect(killed.status == 75, "\(killed.all)")
        #expect(repo.read(".git/shiplane/run.json") != nil)
        // A CI retry in a fresh clone finishes it and deletes the record on origin.
        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        let retry = try runProgram(shiplaneBinary, ["release"], in: fresh.path + "/clone", environment: fresh.environment.merging(["CI": "true"]) { $1 })
        #expect(retry.status == 0, "\(retry.all)")
        #expect(Self.sent(repo) == 1, "the clone sent the notification")
        #expect((try? origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil)
        let release = try origin.git("rev-parse", "refs/heads/main")

        // The checkout that started it still holds the record: it is retired, not resumed.
        let stale = try repo.shiplane(command)
        #expect(stale.status == 0, "\(stale.all)")
        #expect(stale.stderr.contains("was finished elsewhere (origin has v1.3.0 at \(release.prefix(7)) and no run record)"), "\(stale.all)")
        #expect(Self.sent(repo) == 1, "no second notification: \(stale.all)")
        #expect(repo.read(".git/shiplane/run.json") == nil, "the record is retired")
        #expect((try? repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil)
        #expect(try repo.git("rev-parse", "HEAD") == release)
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0", "no second version")
    }

    /// A fresh clone finished the release and started the next one, whose record is now on origin:
    /// the first checkout's record is superseded, so it is retired, not resumed over the new run.
    @Test func aRecordAnotherRunSupersededIsRetired() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        let release = ["bump", "minor", "--commit", "--tag", "--push"]
        #expect(try repo.shiplane(release, environment: ["SHIPLANE_FAULT": "after-step:4"]).status == SIGKILL)
        let fresh = try TemporaryRepository(commit: false)
        let clone = fresh.path + "/clone"
        try fresh.git("clone", "-q", origin.path, clone)
        let ci = fresh.environment.merging(["CI": "true"]) { $1 }
        let finished = try runProgram(shiplaneBinary, release, in: clone, environment: ci)
        #expect(finished.status == 0, "\(finished.all)")
        let next = try runProgram(shiplaneBinary, ["bump", "patch", "--commit", "--tag", "--push"], in: clone,
                                  environment: ci.merging(["SHIPLANE_FAULT": "after-step:4"]) { $1 })
        #expect(next.status == SIGKILL, "\(next.all)")
        #expect((try? origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) != nil, "the next run's record is on origin")

        let stale = try repo.shiplane(["resume"])
        #expect(stale.status == 0, "\(stale.all)")
        #expect(stale.stderr.contains("finished elsewhere (origin has v1.3.0 at"), "\(stale.all)")
        #expect(stale.stderr.contains("the record of another run"), "\(stale.all)")
        #expect(repo.read(".git/shiplane/run.json") == nil)
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0\nv1.3.1", "nothing pushed over the next run")
        #expect((try? origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) != nil, "the next run's record is left alone")
    }

    /// A step after the push fails, and again when resumed: the resumed run stops (75) and undoes
    /// nothing — the release commit and tag stay, as origin has them — then finishes once it can.
    @Test func resumeNeverUndoesWhatWasDoneBeforeThePointOfNoReturn() throws {
        let (repo, origin) = try repository { "try await lane.sh(\"test\", \"-e\", \"\($0)/ready\")" }
        let failed = try repo.shiplane(["release"])
        #expect(failed.status == 75, "\(failed.all)")
        let release = try repo.git("rev-parse", "HEAD")
        #expect(try origin.git("rev-parse", "refs/heads/main") == release)

        let again = try repo.shiplane(["resume"])
        #expect(again.status == 75, "\(again.all)")
        #expect(!again.all.contains("rolling back"), "\(again.all)")
        #expect(try repo.git("rev-parse", "HEAD") == release, "the release commit stays")
        #expect(try repo.git("tag", "--list") == "v1.2.3\nv1.3.0")
        #expect(repo.read("VERSION") == "1.3.0\n")

        #expect(FileManager.default.createFile(atPath: repo.root + "/ready", contents: Data()))
        let finished = try repo.shiplane(["resume"])
        #expect(finished.status == 0, "\(finished.all)")
        #expect(repo.read(".git/shiplane/run.json") == nil)
        #expect(try origin.git("tag", "--list") == "v1.2.3\nv1.3.0")
    }

    /// How many times the lane's notification stand-in ran.
    private static func sent(_ repo: TemporaryRepository) -> Int {
        (FileManager.default.contents(atPath: repo.root + "/sent").map { String(decoding: $0, as: UTF8.self) } ?? "")
            .split(separator: "\n").count
    }
}
