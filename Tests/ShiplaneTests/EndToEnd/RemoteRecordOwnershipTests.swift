import Foundation
import Testing

/// Issue 37: `shiplane rollback` deletes the run record on origin (`refs/shiplane/run`) only when
/// it is this run's. A release is killed after its push (the record went to origin with it); then
/// another clone's run puts its own record there. The rollback leaves that record and says so; with
/// no other run in between it deletes its own. Runs the built `shiplane`; the git command checks
/// origin.
@Suite("Rollback deletes origin's run record only when it is this run's (compare-and-swap)", .serialized, .offThePool)
struct RemoteRecordOwnershipTests {
    /// A repository at 1.2.3 whose release (`bump minor --commit --tag --push`) was killed right
    /// after its push was done: past the point of no return, its record on origin.
    private func killedAfterThePush() throws -> (repo: TemporaryRepository, origin: TemporaryRepository, pushed: String) {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        // Effects: VERSION, package.json, the commit, the tag, the push (5th).
        let killed = try repo.shiplane(["bump", "minor", "--commit", "--tag", "--push"], environment: ["SHIPLANE_FAULT": "after-effect:5"])
        #expect(killed.status == SIGKILL, "\(killed.all)")
        let pushed = try origin.git("rev-parse", "refs/shiplane/run")
        #expect(try repo.git("rev-parse", "refs/shiplane/run") == pushed, "origin holds the record this run pushed")
        return (repo, origin, pushed)
    }

    /// Another clone's run replaces origin's record with its own (a record commit of its own run id).
    private func anotherRunsRecord(on origin: TemporaryRepository, beside repo: TemporaryRepository) throws -> String {
        let other = repo.root + "/other"
        let cloned = try runProgram("/usr/bin/git", ["clone", "-q", origin.path, other], in: repo.root, environment: repo.environment)
        #expect(cloned.status == 0, "\(cloned.all)")
        let record = #"{"id": "another-run-0001", "lane": "release", "arguments": []}"# + "\n"
        try Data(record.utf8).write(to: URL(fileURLWithPath: other + "/run.json"))
        for arguments in [["checkout", "-q", "--orphan", "record"], ["rm", "-rfq", "--cached", "."], ["add", "run.json"],
                          ["commit", "-q", "-m", "shiplane: run record"], ["push", "-q", "-f", "origin", "HEAD:refs/shiplane/run"]] {
            let done = try runProgram("/usr/bin/git", arguments, in: other, environment: repo.environment)
            #expect(done.status == 0, "git \(arguments.joined(separator: " ")): \(done.all)")
        }
        return try origin.git("rev-parse", "refs/shiplane/run")
    }

    @Test func rollbackLeavesARecordAnotherRunPutOnOrigin() throws {
        let (repo, origin, pushed) = try killedAfterThePush()
        let theirs = try anotherRunsRecord(on: origin, beside: repo)
        #expect(theirs != pushed)

        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(rollback.stderr.contains("is not the one this run pushed: another run replaced it, so it was left as it is"), "\(rollback.all)")
        #expect(try origin.git("rev-parse", "refs/shiplane/run") == theirs, "the other run's record stays on origin")
        #expect(try origin.git("show", "refs/shiplane/run:run.json").contains("another-run-0001"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "this run's local record is settled")
        #expect((try? repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil, "and its local copy gone")
        _ = try origin.git("fsck", "--strict")
    }

    @Test func rollbackDeletesItsOwnRecordOnOrigin() throws {
        let (repo, origin, _) = try killedAfterThePush()
        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains("left as it is"), "\(rollback.all)")
        #expect((try? origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil, "this run's record is gone from origin")
        #expect((try? repo.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil)
    }

    /// The record was updated after the push in another checkout's copy of the same run (the local
    /// copy no longer the commit origin holds), yet it names this run: it is this run's, and goes.
    @Test func rollbackDeletesARecordOfThisRunThatItsLocalCopyNoLongerMatches() throws {
        let (repo, origin, pushed) = try killedAfterThePush()
        // The local copy moves on (as an update origin did not take would leave it).
        let local = try repo.git("show", "refs/shiplane/run:run.json")
        let blob = try runProgram("/bin/sh", ["-c", "git cat-file blob refs/shiplane/run | git hash-object -w --stdin"], in: repo.path, environment: repo.environment)
        #expect(blob.status == 0 && local.contains("\"id\""))
        let tree = try runProgram("/bin/sh", ["-c", "printf '100644 blob %s\\trun.json\\n' \(blob.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) | git mktree"],
                                  in: repo.path, environment: repo.environment)
        let commit = try repo.git("commit-tree", "-m", "shiplane: run record, later", tree.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        try repo.git("update-ref", "refs/shiplane/run", commit)
        #expect(commit != pushed)

        let rollback = try repo.shiplane(["rollback"])
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains("left as it is"), "\(rollback.all)")
        #expect((try? origin.git("rev-parse", "--verify", "-q", "refs/shiplane/run")) == nil, "this run's record is gone from origin")
    }
}
